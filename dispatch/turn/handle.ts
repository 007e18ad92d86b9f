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
 * With loops running, an item event adding or removing a `loop:<phase>` label (the loop's own
 * publish) is settled `phase-label`. For a live, active session, an action `routing.deliver`
 * leaves out (an assignment, a milestone, an edit that changed nothing the agent reads, a passing
 * CI run) is settled `quiet-action` (`_quiet.ts`), after the steps that are never filtered: a
 * close, a control keyword, a gate verdict, an answer, a presence nudge. A CI event for a live
 * session notes its check's result on the record first (`ciFailing`: what `recovered` reads).
 * While the live session awaits input (the agent's `the-loop ask`), a comment written by a person
 * is its answer (`_ask.ts`: `input_received` kind `answer`, delivered framed, the wait closed).
 *
 * A delivery id the session already took (or holds in a batch not yet delivered) is settled
 * `duplicate-delivery` first; one it marked in flight (before a paste whose note never came: a
 * crash) is delivered again, its prompt saying so. A delivery into a live session is handed to the session's batch
 * (`batch.ts`) and answered later; every other step that acts on the session (a command, a
 * closure, a spawn) first waits until the session's earlier deliveries are done.
 *
 * @module
 */
import type { SessionRecord } from "../../state/registry.ts";
import { parseControl } from "../keywords.ts";
import type { RoutedEvent } from "../types.ts";
import type { Answer, Handled, Turn } from "./turn.ts";
import { askInput } from "./_call_sites.ts";
import { closure } from "./_closure.ts";
import { onCommand } from "./_control.ts";
import { deliver } from "./deliver.ts";
import { explainRefusal } from "./comments.ts";
import { armed, spawnPolicy } from "./_policy.ts";
import { spawnFor } from "./_spawn.ts";
import { isPhaseLabel, loopFact, onGateComment } from "./_loop.ts";
import { onAnswer } from "./_ask.ts";
import { park, Suspended, whileSuspended } from "./suspend.ts";
import { quietAction, trackCi } from "./_quiet.ts";

/**
 * Decides and does the turn's event. A turn whose hooks parked (`Suspended`) is parked
 * (`suspend.ts`); while its item is suspended, a later event is held.
 */
export async function handle(turn: Turn): Promise<Answer> {
  try {
    return await decide(turn);
  } catch (err) {
    if (err instanceof Suspended) return await park(turn, err);
    throw err;
  }
}

async function decide(turn: Turn): Promise<Answer> {
  const { deps, event } = turn;
  // a delivery of this id still gathering or under way first (its note comes once it went in),
  // then one read of the session's record: the duplicate check and the live session
  if (deps.deliveries.has(turn.ref, event.deliveryId)) return turn.settled("duplicate-delivery");
  const { duplicate, inFlight, live } = await deps.sessions.lookup(turn.ref, event.deliveryId);
  if (duplicate) return turn.settled("duplicate-delivery");
  const held = await whileSuspended(turn);
  if (held) return held;
  // marked in flight and never noted delivered: delivered again, flagged as a possible repeat
  if (inFlight) turn.repeat = true;
  switch (event.kind) {
    case "close":
      await deps.deliveries.drain(turn.ref);
      return await closure(turn);
    case "comment":
    case "review":
    case "review_comment":
      return await onText(turn, live);
    case "presence":
      return await onPresence(turn, live);
    case "item":
    case "ci":
      return await onOther(turn, live);
  }
}

async function onText(turn: Turn, live: SessionRecord | undefined): Promise<Answer> {
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
  if (parsed.command) {
    await turn.deps.deliveries.drain(turn.ref);
    return await onCommand(turn, parsed.command, { loop: parsed.loop });
  }
  // a person's verdict at a gate is consumed like a command; any other comment goes on
  const verdict = await onGateComment(turn, live);
  if (verdict) return verdict;
  if (live?.status === "paused") return turn.dropped("session-paused");
  if (!live) {
    await turn.deps.deliveries.drain(turn.ref);
    const policy = await spawnPolicy(turn);
    if (policy !== "spawn") return turn.dropped(policy);
  }
  // while the agent awaits input, a person's next comment is its answer: `input_received` is
  // asked once, of kind `answer` (in `onAnswer`); any other comment is asked of kind `comment`
  if (live?.awaitingInput) {
    const answered = await onAnswer(turn, live, event);
    if (answered) return answered;
  }
  // an action `routing.deliver` leaves out (a dismissal, an edit that changed nothing): no turn
  const quiet = live && quietAction(turn, live);
  if (quiet) return quiet;
  // the hooks see the comment before anything is rendered; a rewrite applies to a copy
  const gate = await askInput(turn, {
    kind: "comment",
    command: "",
    text: event.text,
    loop: await loopFact(turn, "input_received"),
  });
  if (!gate.proceed) {
    return await explainRefusal(turn, gate, {
      point: "input_received",
      what: "deliver",
      settle: "input-refused",
    });
  }
  const shown: RoutedEvent = gate.text === event.text ? event : { ...event, text: gate.text };
  if (live) return deliver(turn, live, shown);
  const record = await turn.deps.controlStore.get(turn.ref);
  return await spawnFor(turn, shown, {
    command: record?.command ?? "",
    actor: record?.actor ?? event.actor ?? "",
  });
}

async function onPresence(turn: Turn, live: SessionRecord | undefined): Promise<Handled> {
  if (live) return turn.settled("session-exists");
  await turn.deps.deliveries.drain(turn.ref);
  const policy = await spawnPolicy(turn);
  if (policy !== "spawn") return turn.dropped(policy);
  const record = await turn.deps.controlStore.get(turn.ref);
  return await spawnFor(turn, turn.event, {
    command: record?.command ?? "",
    actor: record?.actor ?? turn.event.actor ?? "",
  });
}

/** `item` and `ci`: delivered to a live session; only an `item` may spawn, and only unstarted. */
async function onOther(turn: Turn, live: SessionRecord | undefined): Promise<Answer> {
  // the loop's own `loop:<phase>` label changes come back as events: nothing for the agent
  if (isPhaseLabel(turn)) return turn.settled("phase-label");
  // a check's result is remembered even when it is not delivered (the next success may recover)
  if (live && turn.event.kind === "ci") await trackCi(turn, live);
  if (live?.status === "paused") return turn.dropped("session-paused");
  if (live) return quietAction(turn, live) ?? deliver(turn, live, turn.event);
  await turn.deps.deliveries.drain(turn.ref);
  if (turn.event.kind === "ci") return turn.settled("no-session");
  if (!armed(turn)) return turn.dropped("spawn-policy");
  if (turn.config.control.requireStartCommand) {
    const started = await turn.deps.controlStore.startRequested(turn.ref);
    return started ? turn.settled("no-session") : turn.dropped("awaiting-start");
  }
  return await spawnFor(turn, turn.event, { command: "", actor: turn.event.actor ?? "" });
}
