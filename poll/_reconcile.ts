/**
 * Reconciliation: after a complete, uninterrupted cycle, a live session whose item
 * is in a source's scope but was not listed is checked (one conditional GET: a 304 while nothing
 * changes): closed or merged closes its session through the router, as a `closed` webhook would;
 * still open (its label removed, or the issue a listed PR closes), unanswerable or out of scope
 * leaves it alone. Never on doubt. An item closed here and later reopened and relabelled is first
 * sight again. Before the close, what was said on the item since the last
 * cycle is handed over, in order, as the webhook path would have delivered it before the close.
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import type { GitHubIssue } from "../github/mod.ts";
import { parseWorkItem, repoOf } from "../state/work_item.ts";
import { type CycleState, noteFailure, routeSafely, verdictOf } from "./_cycle.ts";
import { closeEvent } from "./payloads.ts";
import { processItem } from "./_item.ts";

/** What the cycle listed. */
export interface Listed {
  /** Refs listed, and refs a listed pull request closes. */
  covered: Set<string>;
  /** Repos polled → the kinds polled there. */
  scope: Map<string, { issues: boolean; pullRequests: boolean }>;
}

/** Closes the sessions of items that closed. */
export async function reconcile(
  s: CycleState,
  listed: Listed,
  signal?: AbortSignal,
): Promise<void> {
  const sessions = await s.sessions.listLive();
  for (const session of sessions) {
    if (signal?.aborted) {
      s.counts.interrupted = true;
      return;
    }
    const item = parseWorkItem(session.workItem.ref);
    if (!item || listed.covered.has(item.ref)) continue;
    const repo = repoOf(item);
    const kinds = listed.scope.get(repo);
    if (!kinds) continue;
    const host = s.ledger.host(repo) ?? s.settings.apiHost;
    if (item.host !== host) continue;
    let issue: GitHubIssue;
    try {
      issue = await s.gh.getIssue(repo, item.number);
    } catch (error) {
      noteFailure(s, error);
      s.events.emit("poll.provider_error", {
        repo,
        work_item: item.ref,
        operation: "closure",
        error: messageOf(error),
        will_retry: true,
      });
      continue;
    }
    const isPull = issue.pull_request !== undefined;
    if (issue.state !== "closed" || (isPull ? !kinds.pullRequests : !kinds.issues)) {
      const rec = s.ledger.get(item.ref);
      if (rec && !rec.absent) {
        rec.absent = true;
        s.ledger.touch();
      }
      continue;
    }
    const state = isPull && issue.pull_request?.merged_at ? "merged" : "closed";
    if (s.ledger.closedAs(item.ref) === state) continue; // handed over already
    s.events.emit("poll.closure_detected", {
      work_item: item.ref,
      state,
      kind: isPull ? "pull_request" : "issue",
    });
    // the last words before the close reach the session first (a known item only: an item never
    // seen would be a first sight, which baselines its thread anyway)
    if (s.ledger.get(item.ref) && !s.ledger.get(item.ref)?.baselining) {
      await processItem(s, repo, item, issue);
    }
    const rec = s.ledger.get(item.ref);
    const ctx = { repo, item, issue, head: rec?.pull?.head, closing: rec?.pull?.closing };
    const v = verdictOf(await routeSafely(s, closeEvent(ctx, state), `item ${state}`, item.ref));
    if (v.kind === "failed") {
      s.counts.failures++;
      continue;
    }
    s.counts.closures++;
    if (s.dryRun) continue;
    s.ledger.markClosed(item.ref, state);
    await s.control.clear(item.ref);
  }
  await s.ledger.flush();
}
