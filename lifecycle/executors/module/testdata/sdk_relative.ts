// The repo's own examples import the SDK relatively; it is served from the embedded copy.
import { LifecycleHooks } from "../../../sdk/mod.ts";

export default class Announcer extends LifecycleHooks {
  override phase_changed() {
    return { notify: false };
  }
}
