/**
 * A control command from a comment: asked of `input_received` (kind
 * `command`) first — a refusal is `control.rejected` {reason: input-refused} — then applied
 * through the control actions, and never forwarded to the agent.
 *
 * - `start` on an item that is not armed: `control.rejected` {reason: spawn-policy}, nothing
 *   recorded. Armed: the start is recorded (durably) and, with no live session, the session is
 *   spawned now (`work_item_start` first, once per arming). `loop=NAME` after the keyword is
 *   kept in the record (the loop the item walks); a loop nobody declared is `control.rejected`
 *   {reason: unknown-loop}, nothing recorded.
 * - `pause`, `resume`, `stop`: applied as `SessionControl` decides (a stop also ends the harness
 *   and, here, forgets the start marker: the next start is a new arming). A resume of an item
 *   its loop parked (escalated) gives the agent its node's assignment again.
 *
 * @module
 */
import type { ControlCommand } from "../../state/control.ts";
import type { Handled, Turn } from "./turn.ts";
import { askInput } from "./_call_sites.ts";
import { armed } from "./_policy.ts";
import { spawnFor } from "./_spawn.ts";
import { knownLoops, loopFact, parked, resumedLoop } from "./_loop.ts";

function rejected(turn: Turn, command: ControlCommand, reason: string, detail?: string): void {
  try {
    turn.deps.events.emit("control.rejected", {
      work_item: turn.ref,
      command,
      reason,
      origin: "comment",
      actor: turn.event.actor ?? "",
      recorded: false,
      ...(detail !== undefined ? { detail } : {}),
    });
  } catch { /* the log must not decide a command */ }
}

/** Executes `command`, carried by the turn's comment. */
export async function onCommand(
  turn: Turn,
  command: ControlCommand,
  o: { loop?: string } = {},
): Promise<Handled> {
  const { deps, event } = turn;
  const actor = event.actor;
  if (!actor) {
    rejected(turn, command, "unauthorized-actor");
    return turn.settled("unauthorized-actor");
  }
  const gate = await askInput(turn, {
    kind: "command",
    command,
    text: "",
    loop: o.loop ?? await loopFact(turn, "input_received"),
  });
  if (!gate.proceed) {
    rejected(turn, command, "input-refused", gate.reason || `refused by ${gate.hook}`);
    return turn.settled("input-refused");
  }
  if (command === "start" && !armed(turn)) {
    rejected(turn, command, "spawn-policy");
    return turn.settled("not-armed");
  }
  if (o.loop !== undefined) {
    const known = knownLoops(turn);
    if (known && !known.includes(o.loop)) {
      rejected(turn, command, "unknown-loop", `${o.loop} (known: ${known.join(", ")})`);
      return turn.settled("command-rejected", false);
    }
  }
  turn.pickup();
  const wasParked = command === "resume" && await parked(turn);
  const origin = { source: "comment" as const, actor, note: event.subject?.url ?? "" };
  const result = await deps.control.apply(
    command,
    event.workItem,
    origin,
    o.loop !== undefined ? { loop: o.loop } : undefined,
  );
  if (result.status === "rejected") return turn.settled("command-rejected", false);
  if (command === "stop") await deps.startMarks.clear(turn.ref).catch(() => {});
  if (wasParked) await resumedLoop(turn, result.session);
  if (command !== "start") return turn.settled("command", true);
  const live = result.session?.status === "closed" ? undefined : result.session;
  if (live ?? (await deps.sessions.live(turn.ref))) return turn.settled("command", true);
  return await spawnFor(turn, event, { command, actor });
}
