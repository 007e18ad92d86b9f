/**
 * A delivery into a live, active session: the event prompt rendered (from the event as the
 * `input_received` hooks left its text) and handed to the session's gathered deliveries
 * (`batch.ts`) with its part of a burst; a batch goes to the runner as one prompt, its events in
 * one frame (`burst.ts`) — or, when the runner answers that the harness is not running (it never
 * launches one itself), the session is relaunched here on the first prompt of it, after
 * `session_spawn`: the only relaunch there is — and its delivery ids are noted on the session
 * (at-most-once), behind the session's next batch.
 *
 * @module
 */
import type { RoutedEvent } from "../types.ts";
import { abortedWaiting, type Handled, type Later, type Turn } from "./turn.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { Pending, Sent } from "./batch.ts";
import type { HostedSession } from "../seams.ts";
import { eventDelivery } from "./_render.ts";
import { burstPrompt } from "./burst.ts";
import { respawn } from "./_spawn.ts";
import { messageOf } from "../../errors.ts";
import { hostedOf } from "../sessions/mod.ts";
import { holdToo, park, Suspended } from "./suspend.ts";
import type { RunUse } from "../../state/usage.ts";
import {
  admit,
  afterRun,
  countRelaunch,
  guardedAuthor,
  launchBreach,
  limitsFor,
  pauseForBudget,
  sumUse,
} from "./_budget.ts";

function isParked(h: Handled): boolean {
  return h.outcome.status === "settled" && h.outcome.reason === "suspended";
}

/** Queues `event` (text maybe rewritten) for `live`; its outcome comes once it was delivered. */
export function deliver(turn: Turn, live: SessionRecord, event: RoutedEvent): Later {
  turn.pickup();
  const { prompt, part } = eventDelivery(turn, event);
  if (turn.repeat) turn.emit("dispatch.repeat", { gh_event: event.ghEvent }, "warning");
  return turn.queue(live, prompt, event, part);
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
  const { sessions } = leader.deps;
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
    // paused by a budget: held behind the pause (delivered on resume); paused by a person: dropped
    const record = await leader.deps.suspensions?.ofItem(leader.ref).catch(() => undefined);
    if (record?.budget) {
      await pauseForBudget(leader, record.budget, batch, current);
      return [];
    }
    for (const p of batch) p.resolve(p.turn.dropped("session-paused"));
    return [];
  }
  const { go, stop } = admit(batch, current);
  const sent = go.length > 0 ? await deliverNow(go, current, landed) : [];
  if (stop) await pauseForBudget(stop.held[0].turn, stop.breach, stop.held, current);
  return sent;
}

/** Delivers a batch the budgets admitted (see {@linkcode deliverBatch}). */
async function deliverNow(
  batch: Pending[],
  current: SessionRecord,
  landed: string[],
): Promise<Sent[]> {
  const leader = batch[0].turn;
  const { runner } = leader.deps;
  const hosted = { ...hostedOf(current), env: leader.deps.sessionEnv?.(leader.ref) };
  const prompt = burstPrompt(batch);
  // in flight before the paste: a crash before the note leaves them marked, and their
  // redelivery says it may repeat (at most this batch reaches the session twice); the batches
  // delivered before whose note is still behind are taken as delivered in the same line
  await fly(batch, landed);
  let took: boolean;
  let use: RunUse | undefined;
  const limits = limitsFor(leader, leader.deps.meters.of(current));
  try {
    took = await leader.harness(
      `delivering to ${hosted.harness}`,
      (signal) =>
        runner.deliver(hosted, prompt, {
          signal,
          ...(limits ? { limits } : {}),
          onUsage: (u) => use = u,
        }),
    );
  } catch (err) {
    // a run its own cap stopped (`--max-budget-usd`, `--max-turns`: it exits 1) did its work:
    // taken as delivered, and the item pauses — a retry would only spend more
    const capped = use ? afterRun(leader, current, use) : undefined;
    if (capped) {
      await pauseForBudget(leader, capped, [], current);
      return batch.map((pending, i) => ({
        pending,
        hosted,
        batch: batch.length,
        ...(i === 0 ? { use } : {}),
      }));
    }
    for (const p of batch) p.resolve({ outcome: p.turn.failed("deliver", err) });
    return [];
  }
  if (!took) {
    // the harness is not running (the runner started nothing): relaunched here — the one place
    // a dead harness is launched again — on the first prompt; the rest go into the new harness
    // as a batch of their own
    const breach = launchBreach(leader, current);
    if (breach) {
      await pauseForBudget(leader, breach, batch, current);
      return [];
    }
    const [first, ...rest] = batch;
    const relaunched = await relaunch(first, hosted, current);
    first.resolve(relaunched);
    if (isParked(relaunched)) {
      // the relaunch parked (its session_spawn hook broke): the rest are held behind it
      for (const p of rest) p.resolve(await holdToo(p.turn, p.event));
      return [];
    }
    return rest.length > 0 ? await deliverBatch(rest) : [];
  }
  const spent = afterRun(leader, current, use);
  // the run that took a sum to its limit was the last: the item pauses now, not at its next event
  if (spent) await pauseForBudget(leader, spent, [], current);
  return batch.map((pending, i) => ({
    pending,
    hosted,
    batch: batch.length,
    ...(i === 0 && use ? { use } : {}),
  }));
}

/** Notes delivered events on their session, then settles each as delivered (never throws). */
export async function noteSent(sent: Sent[]): Promise<void> {
  await note(sent.map((s) => s.pending), sumUse(sent.map((s) => s.use)));
  for (const s of sent) {
    s.pending.resolve(delivered(s.pending, s.hosted, { respawned: false, batch: s.batch }));
  }
}

/** The harness was gone: relaunched with this event's prompt (the `session_spawn` hooks asked). */
async function relaunch(
  p: Pending,
  hosted: HostedSession,
  current: SessionRecord,
): Promise<Handled> {
  // a relaunch boots a harness: bounded like the turns' launches, in a pool of its own
  const release = await p.turn.deps.launches.take();
  let use: RunUse | undefined;
  countRelaunch(p.turn, current);
  try {
    const refused = await respawn(p.turn, hosted, p.prompt, {
      limits: limitsFor(p.turn, p.turn.deps.meters.of(current)),
      onUsage: (u) => use = u,
    });
    if (refused) return refused;
  } catch (err) {
    if (err instanceof Suspended) return await park(p.turn, err);
    return { outcome: p.turn.failed("deliver", err) };
  } finally {
    release();
  }
  afterRun(p.turn, current, use);
  await note([p], use);
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
async function note(batch: Pending[], use?: RunUse): Promise<void> {
  const { turn } = batch[0];
  const by = batch.map((p) => guardedAuthor(p.event)).filter((a): a is string => !!a);
  try {
    await turn.deps.sessions.touch(turn.ref, batch.map((p) => p.event.deliveryId), {
      ...(by.length > 0 ? { by } : {}),
      ...(use ? { use } : {}),
    });
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
