import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";

/** A hook written against the real SDK. */
export class Gate extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    const allowed = (this.options.allow as string[] | undefined) ?? [];
    return allowed.includes(ctx.actor)
      ? null
      : { proceed: false, reason: `${ctx.actor} is not on the roster` };
  }
}
