import { LifecycleHooks } from "./_base.ts";

export class Alpha extends LifecycleHooks {
  override work_item_start() {
    return { reason: "alpha" };
  }
}

export class Beta extends LifecycleHooks {
  override work_item_start() {
    return { reason: "beta" };
  }
}

export const gamma = {
  phase_changed: () => ({ notify: false }),
};
