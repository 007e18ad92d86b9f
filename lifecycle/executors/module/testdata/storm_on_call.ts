// Hostile, on call: when mallory starts a work item it arranges for its worker to die at once
// (`_dies_soon.ts`) and never answers, so the call ends when the worker dies under it. Anyone
// else gets an answer, so a probe call can close its circuit again.
import { dieSoon } from "./_dies_soon.ts";

export default {
  work_item_start(ctx: { actor?: string }): Promise<never> | null {
    if (ctx.actor !== "mallory") return null;
    dieSoon(0);
    return new Promise(() => {});
  },
};
