/**
 * The spawn policy for a work item with no live session: `spawnOnUnmatched` says
 * whether the item is armed (`always`; `labeled` and the event carries the label; `never`: not
 * armed), and `requireStartCommand` says whether an armed item also waits for a recorded start.
 *
 * @module
 */
import type { Turn } from "./turn.ts";

/** Whether the turn's work item is armed. */
export function armed(turn: Turn): boolean {
  const policy = turn.config.spawnOnUnmatched;
  return policy === "always" || (policy === "labeled" && turn.event.labeled);
}

/** What an event with no session may do: spawn, or be dropped and why. */
export type Policy = "spawn" | "spawn-policy" | "awaiting-start";

/** The policy's verdict for the turn (reads the control record when a start is required). */
export async function spawnPolicy(turn: Turn): Promise<Policy> {
  if (!armed(turn)) return "spawn-policy";
  if (!turn.config.control.requireStartCommand) return "spawn";
  return (await turn.deps.controlStore.startRequested(turn.ref)) ? "spawn" : "awaiting-start";
}
