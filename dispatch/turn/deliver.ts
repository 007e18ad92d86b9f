/**
 * A delivery into a live, active session: the event prompt rendered (from the event as the
 * `input_received` hooks left its text) and handed to the session's gathered deliveries
 * (`batch.ts`); a batch goes to the runner as one prompt — or, when the runner answers that the
 * harness is not running (it never launches one itself), the session is relaunched here on the
 * first prompt of it, after `session_spawn`: the only relaunch there is — and its delivery ids
 * are noted on the session (at-most-once), behind the session's next batch.
 *
 * @module
 */
import type { RoutedEvent } from "../types.ts";
import { abortedWaiting, type Handled, type Later, type Turn } from "./turn.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { Pending, Sent } from "./batch.ts";
import type { HostedSession } from "../seams.ts";
import { eventPrompt } from "./_render.ts";
import { respawn } from "./_spawn.ts";
import { messageOf } from "../../errors.ts";
import { hostedOf } from "../sessions/mod.ts";
import { holdToo, park, Suspended } from "./suspend.ts";

function isParked(h: Handled): boolean {
  return h.outcome.status === "settled" && h.outcome.reason === "suspended";
}

/** Between the prompts of one batch: a line of its own, so each event reads as it would alone. */
export const BATCH_SEPARATOR = "\n\n---\n\n";

/**
 * The first line of the prompt of a delivery that was in flight at a crash (marked on its
 * session before its paste, never noted after it): it may have reached the session already.
 */
export const REPEAT_LINE =
  "(the-loop: this may repeat a message delivered just before a restart; if you already acted " +
  "on it, do not act on it again.)";

/** Queues `event` (text maybe rewritten) for `live`; its outcome comes once it was delivered. */
export function deliver(turn: Turn, live: SessionRecord, event: RoutedEvent): Later {
  turn.pickup();
  const rendered = eventPrompt(turn, event);
  const prompt = turn.repeat ? `${REPEAT_LINE}\n\n${rendered}` : rendered;
  if (turn.repeat) turn.emit("dispatch.repeat", { gh_event: event.ghEvent }, "warning");
  return turn.queue(live, prompt, event);
}

/**
 * Delivers one session's batch; settles the events it did not deliver and returns the others,
 * for {@linkcode noteSent} (never throws).
 */
export async function deliverBatch(all: Pending[], landed: string[] = []): Promise<Sent[]> {
  // an event whose own dispatch was aborted while it waited is handed back, as a turn would be
  const batch: Pending[] = [];
  for (const p of all) {
    if (p.turn.signal?.aborted) {
      p.resolve({ outcome: abortedWaiting() });
    } else batch.push(p);
  }
  if (batch.length === 0) return [];
  // the batch runs under its first event's deadline and signal
  const leader = batch[0].turn;
  const { runner, sessions } = leader.deps;
  // read again: a respawn while the batch waited may have given the session a new harness id
  let current: SessionRecord | undefined;
  try {
    current = await sessions.live(leader.ref);
  } catch (err) {
    leader.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
    current = batch.at(-1)!.live;
  }
  if (!current) {
    const gone = new Error("the session was closed before the delivery");
    for (const p of batch) p.resolve({ outcome: p.turn.failed("deliver", gone) });
    return [];
  }
  if (current.status === "paused") {
    for (const p of batch) p.resolve(p.turn.dropped("session-paused"));
    return [];
  }
  const hosted = { ...hostedOf(current), env: leader.deps.sessionEnv?.(leader.ref) };
  const prompt = batch.map((p) => p.prompt).join(BATCH_SEPARATOR);
  // in flight before the paste: a crash before the note leaves them marked, and their
  // redelivery says it may repeat (at most this batch reaches the session twice); the batches
  // delivered before whose note is still behind are taken as delivered in the same line
  await fly(batch, landed);
  let took: boolean;
  try {
    took = await leader.harness(
      `delivering to ${hosted.harness}`,
      (signal) => runner.deliver(hosted, prompt, { signal }),
    );
  } catch (err) {
    for (const p of batch) p.resolve({ outcome: p.turn.failed("deliver", err) });
    return [];
  }
  if (!took) {
    // the harness is not running (the runner started nothing): relaunched here — the one place
    // a dead harness is launched again — on the first prompt; the rest go into the new harness
    // as a batch of their own
    const [first, ...rest] = batch;
    const relaunched = await relaunch(first, hosted);
    first.resolve(relaunched);
    if (isParked(relaunched)) {
      // the relaunch parked (its session_spawn hook broke): the rest are held behind it
      for (const p of rest) p.resolve(await holdToo(p.turn, p.event));
      return [];
    }
    return rest.length > 0 ? await deliverBatch(rest) : [];
  }
  return batch.map((pending) => ({ pending, hosted, batch: batch.length }));
}

/** Notes delivered events on their session, then settles each as delivered (never throws). */
export async function noteSent(sent: Sent[]): Promise<void> {
  await note(sent.map((s) => s.pending));
  for (const s of sent) {
    s.pending.resolve(delivered(s.pending, s.hosted, { respawned: false, batch: s.batch }));
  }
}

/** The harness was gone: relaunched with this event's prompt (the `session_spawn` hooks asked). */
async function relaunch(p: Pending, hosted: HostedSession): Promise<Handled> {
  // a relaunch boots a harness: bounded like the turns' launches, in a pool of its own
  const release = await p.turn.deps.launches.take();
  try {
    const refused = await respawn(p.turn, hosted, p.prompt);
    if (refused) return refused;
  } catch (err) {
    if (err instanceof Suspended) return await park(p.turn, err);
    return { outcome: p.turn.failed("deliver", err) };
  } finally {
    release();
  }
  await note([p]);
  return delivered(p, hosted, { respawned: true, batch: 1 });
}

/** Marks the batch's delivery ids in flight on the session (never throws). */
async function fly(batch: Pending[], landed: string[]): Promise<void> {
  const { turn } = batch[0];
  if (!turn.deps.sessions.fly) return;
  try {
    await turn.deps.sessions.fly(turn.ref, batch.map((p) => p.event.deliveryId), { landed });
  } catch (err) {
    // delivered all the same; a crash before its note may repeat it unflagged
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
  }
}

/** Notes the batch's delivery ids on the session (at-most-once). */
async function note(batch: Pending[]): Promise<void> {
  const { turn } = batch[0];
  try {
    await turn.deps.sessions.touch(turn.ref, batch.map((p) => p.event.deliveryId));
  } catch (err) {
    // delivered all the same; a redelivery may repeat it, which is the lesser harm
    for (const p of batch) {
      p.turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
    }
  }
}

function delivered(
  p: Pending,
  hosted: HostedSession,
  o: { respawned: boolean; batch: number },
): Handled {
  p.turn.emit("dispatch.delivered", {
    kind: p.event.kind,
    gh_event: p.event.ghEvent,
    harness: hosted.harness,
    harness_session_id: hosted.harnessSessionId,
    respawned: o.respawned,
    batch: o.batch,
  });
  return {
    outcome: { status: "delivered", detail: o.respawned ? "respawned" : "delivered" },
  };
}
