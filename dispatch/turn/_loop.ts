/**
 * The loop runtime inside a turn: entering the item's loop at a spawn (after `session_spawned`),
 * the agent's `advance` claim, a person's keyword comment at a gate, escalation, and the loop's
 * completion at closure. Each move writes the position first, then asks `phase_changed`, then
 * publishes the `loop:<phase>` label, then does the entered node's entry (an agent node's
 * assignment delivered; a human node's request comment and `waiting_for_input`).
 *
 * A loop fault (an unreadable position, a failed write) never costs a delivery: it is an event,
 * and the turn goes on.
 *
 * @module
 */
import type { SessionRecord } from "../../state/registry.ts";
import type { VerbResult } from "../types.ts";
import type { Handled, Turn } from "./turn.ts";

/** The `$graph_context` of a spawn prompt: the assignment of the node the item is (or will be) at. */
export function loopContext(_turn: Turn): Promise<string> {
  return Promise.resolve("");
}

/** After `session_spawned`: the item enters its loop's start node, unless it stands in it already. */
export async function enterLoop(_turn: Turn, _record: SessionRecord): Promise<void> {}

/**
 * A comment on an item waiting at a human node: a gate keyword of an authorized person resolves
 * it (consumed, never delivered); the Handled to return, or `undefined` to go on as usual.
 */
export function onGateComment(
  _turn: Turn,
  _live: SessionRecord | undefined,
): Promise<Handled | undefined> {
  return Promise.resolve(undefined);
}

/** `the-loop advance`: the agent's claim that its node is done with `outcome`. */
export function claim(
  _turn: Turn,
  _req: { outcome: string; node?: string },
): Promise<VerbResult> {
  return Promise.resolve({ exit: 1, message: "loops are not built yet" });
}

/** At closure: the item's loop completes, wherever it stood. */
export async function completeLoop(_turn: Turn): Promise<void> {}
