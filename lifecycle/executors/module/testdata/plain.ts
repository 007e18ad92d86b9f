// A plain-object hook: which points it handles is which methods it has.
import { twice } from "./_lib.ts";

export default {
  work_item_start(ctx: Record<string, unknown>) {
    return { proceed: true, reason: `seen ${twice(String(ctx.actor))}` };
  },
  phase_changed() {
    return null;
  },
};
