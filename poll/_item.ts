/**
 * One listed item, per cycle: decide whether its thread changed, read what is new, baseline it on
 * first sight (applying pre-existing control keywords in thread order), hand new comments to the
 * router, and record every outcome in the ledger, flushing as it goes.
 *
 * @module
 */
import { isSelfAuthored } from "../github/mod.ts";
import type { GitHubIssue } from "../github/mod.ts";
import { messageOf } from "../errors.ts";
import type { WorkItemRef } from "../state/work_item.ts";
import { type CycleState, isoNow, routeSafely, verdictOf } from "./_cycle.ts";
import { authorized, noteFailure } from "./_cycle.ts";
import { type ItemRecord, newRecord } from "./ledger.ts";
import { entryEvent, type ItemContext, type ThreadEntry } from "./payloads.ts";
import { readThread, type Thread } from "./thread.ts";

/** The seen set, written through to the record (so a mid-item flush carries it). */
class Seen {
  readonly #ids: Set<string>;
  readonly #rec: ItemRecord;

  constructor(rec: ItemRecord) {
    this.#rec = rec;
    this.#ids = new Set(rec.seenComments);
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  add(id: string): void {
    if (this.#ids.has(id)) return;
    this.#ids.add(id);
    this.#rec.seenComments.push(id);
  }
}

/**
 * Who last edited the entries of one read (REST does not say, GraphQL does): asked once, in one
 * query for every entry not yet seen, the first time an entry is handed over.
 */
class Editors {
  readonly #s: CycleState;
  readonly #ids: string[];
  #known?: Promise<Map<string, string | null>>;

  constructor(s: CycleState, unseen: ThreadEntry[]) {
    this.#s = s;
    this.#ids = unseen.map((e) => e.nodeId);
  }

  /**
   * The entry's last editor (one of the unseen entries: only those are handed over), `null` when
   * nobody edited it. A failed query is asked again.
   */
  async of(entry: ThreadEntry): Promise<string | null> {
    this.#known ??= this.#s.gh.commentEditors(this.#ids);
    try {
      return (await this.#known).get(entry.nodeId) ?? null;
    } catch (error) {
      this.#known = undefined;
      throw error;
    }
  }
}

/** After a pull request's thread is read in the same second it changed, read it once more. */
const HOT_MS = 3_000;

/** Whether the item's thread must be read this cycle. */
function needsRead(rec: ItemRecord | undefined, issue: GitHubIssue): boolean {
  if (!rec) return true;
  if (rec.updatedAt !== issue.updated_at || rec.commentCount !== issue.comments) return true;
  if (rec.refetch || rec.inFlight.length > 0 || Object.keys(rec.commentAttempts).length > 0) {
    return true;
  }
  // reviews and inline comments are not counted in `comments`: one that lands in the second a
  // pull request was read moves neither `updated_at` nor the count, so read it once more
  if (rec.kind === "pull" && rec.fetchedAt) {
    return Date.parse(rec.fetchedAt) < Date.parse(issue.updated_at) + HOT_MS;
  }
  return false;
}

/** Gives comments another version gave up on one more try; the running version's give-ups, never. */
function rearm(s: CycleState, ref: string, rec: ItemRecord): void {
  const g = rec.gaveUp;
  if (!g || g.version === s.version || g.comments.length === 0) return;
  const ids = new Set(g.comments);
  rec.seenComments = rec.seenComments.filter((id) => !ids.has(id));
  for (const id of ids) rec.commentAttempts[id] = 0;
  rec.refetch = true;
  delete rec.gaveUp;
  s.ledger.touch();
  s.events.emit("poll.rearmed", {
    work_item: ref,
    comments: [...ids],
    gave_up_version: g.version,
  });
}

/** Processes one listed item. Returns its context (for presence) or undefined when unreadable. */
export async function processItem(
  s: CycleState,
  repo: string,
  item: WorkItemRef,
  issue: GitHubIssue,
): Promise<{ ctx: ItemContext; rec: ItemRecord; firstSight: boolean } | undefined> {
  const ref = item.ref;
  const kind = issue.pull_request !== undefined ? "pull" : "issue";
  const known = s.ledger.get(ref);
  // a first sight cut short by a crash is finished as a first sight
  const firstSight = known === undefined || known.baselining !== undefined;
  const rec = known ?? newRecord(kind);
  if (rec.absent) {
    delete rec.absent;
    s.ledger.touch();
  }
  rearm(s, ref, rec);
  const ctx: ItemContext = {
    repo,
    item,
    issue,
    head: rec.pull?.head,
    closing: rec.pull?.closing,
  };
  if (!authorized(s, issue.user?.login) && !rec.warnedAuthor) {
    s.events.emit("poll.unauthorized", { work_item: ref, actor: issue.user?.login ?? "" });
    rec.warnedAuthor = true;
    if (!firstSight) s.ledger.touch();
  }
  if (!firstSight && !needsRead(known, issue)) return { ctx, rec, firstSight };
  let thread: Thread;
  const readFrom = firstSight || rec.refetch ? {} : rec.since;
  try {
    thread = await readThread(s.gh, repo, issue, readFrom);
  } catch (error) {
    noteFailure(s, error);
    s.events.emit("poll.provider_error", {
      repo,
      work_item: ref,
      operation: "thread",
      error: messageOf(error),
      will_retry: true,
    });
    return undefined;
  }
  ctx.pull = thread.pull;
  if (thread.pull) {
    rec.pull = { head: thread.pull.head?.ref ?? "", closing: thread.closing ?? [] };
    ctx.head = rec.pull.head;
    ctx.closing = rec.pull.closing;
  }
  if (firstSight) {
    if (rec.baselining === undefined) {
      // decided once: a restart must not change its mind after the first keyword recorded one
      rec.baselining = { applyControl: (await s.control.get(ref)) === undefined };
    }
    s.ledger.set(ref, rec);
  }
  const seen = new Seen(rec);
  const editors = new Editors(s, thread.entries.filter((e) => !seen.has(e.nodeId)));
  if (firstSight) {
    await baseline(s, ctx, rec, thread.entries, seen, editors);
    rec.spawn = { pending: true, attempts: 0 };
  } else {
    for (const entry of thread.entries) {
      if (seen.has(entry.nodeId)) continue;
      const pending = entry.nodeId in rec.commentAttempts || rec.inFlight.includes(entry.nodeId);
      const mark = rec.since[thread.stream.get(entry.nodeId) ?? "comments"];
      if (!pending && thread.stream.has(entry.nodeId) && mark && entry.createdAt < mark) {
        seen.add(entry.nodeId); // an edit of a comment handled long ago: not a new comment
        continue;
      }
      const why = pending ? "retry" : "new comment";
      const routed = await handOver(s, ctx, rec, entry, seen, editors, why);
      if (routed && !pending) rec.spawn = { ...rec.spawn, pending: true, attempts: 0 };
    }
  }
  finishRead(s, rec, issue, thread);
  await s.ledger.flush();
  return { ctx, rec, firstSight };
}

/**
 * First sight: baseline the thread, except authorized control keywords from a non-self author
 * when the item has no control record yet: those are applied, in thread order.
 */
async function baseline(
  s: CycleState,
  ctx: ItemContext,
  rec: ItemRecord,
  entries: ThreadEntry[],
  seen: Seen,
  editors: Editors,
): Promise<void> {
  const apply = rec.baselining?.applyControl ?? false;
  for (const entry of entries) {
    if (seen.has(entry.nodeId)) continue;
    const keyword = authorized(s, entry.author) && !isSelfAuthored(entry.body) &&
      (() => {
        const parsed = s.parseControl(entry.body);
        return !!parsed.command && !parsed.ambiguous;
      })();
    if (keyword && apply) {
      await handOver(s, ctx, rec, entry, seen, editors, "control keyword from before first sight");
      continue;
    }
    seen.add(entry.nodeId);
  }
}

/**
 * Hands one entry to the router and records what became of it. Returns whether the router took
 * it (not dropped).
 */
async function handOver(
  s: CycleState,
  ctx: ItemContext,
  rec: ItemRecord,
  entry: ThreadEntry,
  seen: Seen,
  editors: Editors,
  why: string,
): Promise<boolean> {
  const ref = ctx.item.ref;
  const id = entry.nodeId;
  // edited before the poller read it, the entry is the editor's act: ask who that was
  let editor: string | null;
  try {
    editor = await editors.of(entry);
  } catch (error) {
    const reason = `who last edited it could not be asked: ${messageOf(error)}`;
    await failed(s, ctx, rec, entry, seen, { retry: true, reason });
    await s.ledger.flush();
    return true;
  }
  const wasInFlight = rec.inFlight.includes(id);
  if (wasInFlight) {
    s.events.emit("poll.redelivering", { work_item: ref, comment: id }, { flush: true });
  } else {
    rec.inFlight.push(id);
    s.ledger.touch();
    await s.ledger.flush();
  }
  const result = await routeSafely(s, entryEvent(ctx, entry, { editor }), why, ref);
  rec.inFlight = rec.inFlight.filter((x) => x !== id);
  s.ledger.touch();
  const v = verdictOf(result);
  if (v.kind === "dropped") {
    seen.add(id);
    delete rec.commentAttempts[id];
  } else if (v.kind === "done") {
    seen.add(id);
    delete rec.commentAttempts[id];
    if (v.delivered) s.counts.commentsForwarded++;
    for (const outcome of v.settled) {
      s.events.emit("poll.comment_settled", { work_item: ref, comment: id, outcome });
    }
  } else if (v.release) {
    rec.commentAttempts[id] = rec.commentAttempts[id] ?? 0;
    s.events.emit("poll.attempts_released", { work_item: ref, comments: [id] });
  } else {
    await failed(s, ctx, rec, entry, seen, v);
  }
  await s.ledger.flush();
  return v.kind !== "dropped";
}

/**
 * A failed delivery: count the attempt; after maxRetries, give up — the comment is seen, the
 * give-up recorded with this version, and one notice (never quoting the comment) posted.
 */
async function failed(
  s: CycleState,
  ctx: ItemContext,
  rec: ItemRecord,
  entry: ThreadEntry,
  seen: Seen,
  v: { retry: boolean; reason: string },
): Promise<void> {
  const ref = ctx.item.ref;
  const id = entry.nodeId;
  const attempt = (rec.commentAttempts[id] ?? 0) + 1;
  const giveUp = !v.retry || attempt >= s.settings.maxRetries;
  s.counts.failures++;
  s.events.emit("poll.comment_failed", {
    work_item: ref,
    comment: id,
    url: entry.url,
    reason: v.reason,
    attempt,
    will_retry: !giveUp,
  }, { level: giveUp ? "error" : "warning" });
  if (!giveUp) {
    rec.commentAttempts[id] = attempt;
    return;
  }
  delete rec.commentAttempts[id];
  seen.add(id);
  const gave = rec.gaveUp?.version === s.version ? rec.gaveUp.comments : [];
  rec.gaveUp = { comments: [...new Set([...gave, id])], version: s.version };
  if (s.dryRun) return;
  const notice = `the-loop gave up delivering ${entry.url} to this work item's session after ` +
    `${attempt} attempt${attempt === 1 ? "" : "s"} (${v.reason}). It will not retry that ` +
    `comment; post a new comment to try again.`;
  try {
    await s.gh.createComment(ctx.repo, ctx.issue.number, notice);
  } catch (error) {
    s.events.emit("poll.notice_failed", { work_item: ref, comment: id, error: messageOf(error) });
  }
}

/** Records the read: watermarks, the pruned seen set, the item's state. */
function finishRead(s: CycleState, rec: ItemRecord, issue: GitHubIssue, thread: Thread): void {
  const returned = new Set(thread.entries.map((e) => e.nodeId));
  for (const stream of ["comments", "reviewComments"] as const) {
    const mine = thread.entries.filter((e) => thread.stream.get(e.nodeId) === stream);
    if (mine.length === 0) continue;
    const open = mine.filter((e) =>
      e.nodeId in rec.commentAttempts || rec.inFlight.includes(e.nodeId)
    );
    const times = (open.length > 0 ? open : mine).map((e) => e.updatedAt).sort();
    rec.since[stream] = open.length > 0 ? times[0] : times[times.length - 1];
  }
  // a comment not returned is older than the watermark: it is never returned again unless
  // edited, and an edit of an old comment is recognised by its creation time
  rec.seenComments = rec.seenComments.filter((id) => returned.has(id));
  delete rec.refetch;
  delete rec.baselining;
  rec.updatedAt = issue.updated_at;
  rec.commentCount = issue.comments;
  rec.lastPolledAt = isoNow(s);
  rec.fetchedAt = isoNow(s);
  s.ledger.touch();
}
