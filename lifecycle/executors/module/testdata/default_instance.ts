import { LifecycleHooks } from "./_base.ts";

class Policy extends LifecycleHooks {
  override work_item_start() {
    return { reason: "default instance" };
  }
}

export class Unused extends LifecycleHooks {}

export default new Policy();
