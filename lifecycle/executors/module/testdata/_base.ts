/**
 * A stand-in for the SDK's LifecycleHooks base (the SDK is written elsewhere): the runtime
 * recognises a subclass by its base class's name.
 */
export class LifecycleHooks {
  work_item_start(_ctx: Record<string, unknown>): Record<string, unknown> | null {
    return null;
  }
  handles(point: string): boolean {
    const own = (this as unknown as Record<string, unknown>)[point];
    return typeof own === "function" &&
      own !== (LifecycleHooks.prototype as unknown as Record<string, unknown>)[point];
  }
}
