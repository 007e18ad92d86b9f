/**
 * Presence: an item that is labelled, armed (a start is recorded, when
 * `requireStartCommand`), vouched for (an authorized author or an authorized start) and has no
 * live session — neither its own nor one of the issues it closes — gets a presence event, retried
 * each cycle until a session exists or `maxRetries` is spent. A known item with no activity never
 * spawns by itself: only first sight, a genuinely new comment or a new start arm it.
 *
 * @module
 */
import type { ItemContext } from "./payloads.ts";
import { presenceEvent } from "./payloads.ts";
import { authorized, type CycleState, routeSafely, verdictOf } from "./_cycle.ts";
import type { ItemRecord } from "./ledger.ts";
import { workItem } from "../state/work_item.ts";

const STARTS = new Set(["start", "resume"]);

/** Has `ref`, or one of the issues the pull request closes, a live session? */
async function hasSession(s: CycleState, ctx: ItemContext): Promise<boolean> {
  if (await s.sessions.live(ctx.item.ref)) return true;
  for (const c of ctx.closing ?? []) {
    const [owner, repo] = c.repo.split("/");
    try {
      const linked = workItem({ host: ctx.item.host, owner, repo, number: c.number });
      if (await s.sessions.live(linked.ref)) return true;
    } catch { /* not a ref: nothing to find */ }
  }
  return false;
}

/** Sends the item's presence event when it is owed. */
export async function presence(s: CycleState, ctx: ItemContext, rec: ItemRecord): Promise<void> {
  const ref = ctx.item.ref;
  const control = await s.control.get(ref);
  const started = control !== undefined && STARTS.has(control.command);
  if (started && control.requestedAt !== rec.spawn.startAt) {
    rec.spawn = { pending: true, attempts: 0, startAt: control.requestedAt };
    s.ledger.touch();
  }
  if (!rec.spawn.pending) return;
  if (s.settings.requireStartCommand && !started) return; // waiting for a start: no budget spent
  const vouchedBy = started
    ? control.actor
    : authorized(s, ctx.issue.user?.login)
    ? ctx.issue.user.login
    : undefined;
  if (vouchedBy === undefined) return;
  if (await hasSession(s, ctx)) {
    rec.spawn = { ...rec.spawn, pending: false, attempts: 0 };
    s.ledger.touch();
    await s.ledger.flush();
    return;
  }
  s.counts.spawns++;
  const v = verdictOf(
    await routeSafely(
      s,
      presenceEvent(ctx, vouchedBy),
      `armed, vouched for by ${vouchedBy}, no session`,
      ref,
    ),
  );
  if (v.kind === "failed" && !v.release) {
    const attempts = rec.spawn.attempts + 1;
    const giveUp = !v.retry || attempts >= s.settings.maxRetries;
    rec.spawn = { ...rec.spawn, attempts, pending: !giveUp };
    s.counts.failures++;
    if (giveUp) {
      s.events.emit("poll.spawn_failed", { work_item: ref, attempts, reason: v.reason });
    }
  } else if (v.kind !== "failed") {
    rec.spawn = { ...rec.spawn, pending: false, attempts: 0 };
  }
  s.ledger.touch();
  await s.ledger.flush();
}
