/**
 * What the loop runtime reads in a turn: the loops in force, the item's position (a read or a
 * write that fails is `loop.fault`, and the turn goes on as if the item walked no loop), which
 * loop the item is to walk (its control record's `loop`, else `routing.loop`), and the gate
 * keywords of the routing settings.
 *
 * @module
 */
import type { RoutingConfig } from "../../config/mod.ts";
import { messageOf } from "../../errors.ts";
import {
  DEFAULT_GATE_KEYWORDS,
  type LoopDef,
  type LoopPositions,
  type LoopSet,
  type Position,
} from "../../loops/mod.ts";
import type { Turn } from "./turn.ts";

/** The loop runtime's ports in a turn: present only when the dispatcher has a positions port. */
export interface LoopPorts {
  set: LoopSet;
  positions: LoopPositions;
}

/** The loop every item walks unless told otherwise (`routing.loop`'s default). */
export const DEFAULT_LOOP = "adhoc";

/** The label prefix of a phase: an item at phase `design` carries `loop:design`. */
export const PHASE_LABEL_PREFIX = "loop:";

/** The ports, or `undefined` when no loop runs in this dispatcher (no positions port). */
export function loopPorts(turn: Turn): LoopPorts | undefined {
  const positions = turn.deps.positions;
  if (!positions) return undefined;
  let set: LoopSet;
  try {
    set = turn.deps.loops?.() ?? new Map();
  } catch (err) {
    fault(turn, "loops", err);
    return undefined;
  }
  return { set, positions };
}

/** `loop.fault` (warning): a loop step failed; the turn goes on as if there were no loop. */
export function fault(turn: Turn, step: string, err: unknown): void {
  turn.emit("loop.fault", { step, error: messageOf(err) }, "warning");
}

/** What reading the position found: the position (or none), or a fault (already reported). */
export type Read = { ok: true; position: Position | undefined } | { ok: false };

/** The item's position; a failed read is `loop.fault` and `{ok: false}`. */
export async function readPosition(turn: Turn, ports: LoopPorts): Promise<Read> {
  try {
    return { ok: true, position: await ports.positions.get(turn.ref) };
  } catch (err) {
    fault(turn, "read", err);
    return { ok: false };
  }
}

/** Writes `position` (before any side effect of its move); false (and `loop.fault`) when it failed. */
export async function writePosition(
  turn: Turn,
  ports: LoopPorts,
  position: Position,
): Promise<boolean> {
  try {
    await ports.positions.put(position);
    return true;
  } catch (err) {
    fault(turn, "write", err);
    return false;
  }
}

/** `routing.loop`: the loop an item walks when nothing chose one for it. */
export function routingLoop(config: RoutingConfig): string {
  return config.loop || DEFAULT_LOOP;
}

/** `routing.control.gateKeywords` (outcome → keyword), the defaults when the config has none. */
export function gateKeywords(config: RoutingConfig): Record<string, string> {
  return config.control.gateKeywords ?? { ...DEFAULT_GATE_KEYWORDS };
}

/** The name of the loop the item is to walk: its control record's `loop`, else `routing.loop`. */
export async function chosenLoop(turn: Turn): Promise<string> {
  let record;
  try {
    record = await turn.deps.controlStore.get(turn.ref);
  } catch { /* no record: the routing's loop */ }
  return record?.loop || routingLoop(turn.config);
}

/** Whether `position` is still in its loop: active or escalated (completed: a new walk may begin). */
export function standing(position: Position | undefined): position is Position & {
  status: "active" | "escalated";
} {
  return position !== undefined && position.status !== "completed";
}

/** The loop of `position`, or `undefined` (and `loop.unknown`) when it is no longer declared. */
export function loopOf(turn: Turn, ports: LoopPorts, name: string): LoopDef | undefined {
  const loop = ports.set.get(name);
  if (!loop) {
    turn.emit("loop.unknown", { loop: name, known: [...ports.set.keys()] }, "warning");
  }
  return loop;
}
