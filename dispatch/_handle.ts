/**
 * One event's turn, decided by its kind:
 *
 * | kind                              | live active        | live paused        | no live session            |
 * | --------------------------------- | ------------------ | ------------------ | -------------------------- |
 * | comment / review / review_comment | command, or deliver| command, or drop   | command, or spawn policy   |
 * | item (labeled, opened, synchronize)| deliver           | drop               | spawns only if no start is required |
 * | ci                                | deliver            | drop               | settled `no-session`       |
 * | presence                          | settled            | settled            | spawn policy               |
 * | close                             | closure            | closure            | closure (disarms)          |
 *
 * A delivery id the session already took is settled `duplicate-delivery` first.
 *
 * @module
 */
import { parseControl } from "./keywords.ts";
import type { RoutedEvent } from "./types.ts";
import type { Handled, Turn } from "./_deps.ts";
import { askInput } from "./_call_sites.ts";
import { closure } from "./_closure.ts";
import { onCommand } from "./_control.ts";
import { deliver } from "./_deliver.ts";
import { explainRefusal } from "./_notes.ts";
import { armed, spawnPolicy } from "./_policy.ts";
import { spawnFor } from "./_spawn.ts";

/** Decides and does the turn's event. */
export async function handle(turn: Turn): Promise<Handled> {
  const { deps, event } = turn;
  if (await deps.sessions.hasDelivery(turn.ref, event.deliveryId)) {
    return turn.settled("duplicate-delivery");
  }
  switch (event.kind) {
    case "close":
      return await closure(turn);
    case "comment":
    case "review":
    case "review_comment":
      return await onText(turn);
    case "presence":
      return await onPresence(turn);
    case "item":
    case "ci":
      return await onOther(turn);
  }
}

async function onText(turn: Turn): Promise<Handled> {
  const { event } = turn;
  if (event.action === "deleted") return turn.settled("comment-deleted");
  const parsed = parseControl(event.text, turn.config.control);
  if (parsed.ambiguous) {
    turn.emit("control.ambiguous", {
      work_items: [turn.ref],
      actor: event.actor,
      commands: parsed.ambiguous,
    }, "warning");
    return turn.settled("ambiguous");
  }
  if (parsed.command) return await onCommand(turn, parsed.command);
  const live = await turn.deps.sessions.live(turn.ref);
  if (live?.status === "paused") return turn.dropped("session-paused");
  if (!live) {
    const policy = await spawnPolicy(turn);
    if (policy !== "spawn") return turn.dropped(policy);
  }
  // the hooks see the comment before anything is rendered; a rewrite applies to a copy
  const gate = await askInput(turn, { kind: "comment", command: "", text: event.text });
  if (!gate.proceed) {
    return await explainRefusal(turn, {
      point: "input_received",
      hook: gate.hook,
      reason: gate.reason,
      what: "deliver",
      settle: "input-refused",
    });
  }
  const shown: RoutedEvent = gate.text === event.text ? event : { ...event, text: gate.text };
  if (live) return await deliver(turn, live, shown);
  const record = await turn.deps.controlStore.get(turn.ref);
  return await spawnFor(turn, shown, {
    command: record?.command ?? "",
    actor: record?.actor ?? event.actor ?? "",
  });
}

async function onPresence(turn: Turn): Promise<Handled> {
  if (await turn.deps.sessions.live(turn.ref)) return turn.settled("session-exists");
  const policy = await spawnPolicy(turn);
  if (policy !== "spawn") return turn.dropped(policy);
  const record = await turn.deps.controlStore.get(turn.ref);
  return await spawnFor(turn, turn.event, {
    command: record?.command ?? "",
    actor: record?.actor ?? turn.event.actor ?? "",
  });
}

/** `item` and `ci`: delivered to a live session; only an `item` may spawn, and only unstarted. */
async function onOther(turn: Turn): Promise<Handled> {
  const live = await turn.deps.sessions.live(turn.ref);
  if (live?.status === "paused") return turn.dropped("session-paused");
  if (live) return await deliver(turn, live, turn.event);
  if (turn.event.kind === "ci") return turn.settled("no-session");
  if (!armed(turn)) return turn.dropped("spawn-policy");
  if (turn.config.control.requireStartCommand) {
    const started = await turn.deps.controlStore.startRequested(turn.ref);
    return started ? turn.settled("no-session") : turn.dropped("awaiting-start");
  }
  return await spawnFor(turn, turn.event, { command: "", actor: turn.event.actor ?? "" });
}
