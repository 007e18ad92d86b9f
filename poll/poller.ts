/**
 * {@linkcode Poller}: one poll cycle. Every source's repos are listed (one conditional request per
 * repo: an idle repo costs one 304 and nothing else), each listed item is processed and flushed
 * to the ledger before the next one starts, a stop request is honoured between items, and after
 * a complete, uninterrupted cycle closed items close their sessions.
 *
 * ```ts
 * const poller = new Poller({ gh, sink: router, ledger, sessions, control, events, parseControl });
 * const report = await poller.cycle(settingsFromConfig(config), { signal });
 * ```
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import type { EventSink } from "../events/mod.ts";
import type { GitHubIssue } from "../github/mod.ts";
import type { RouteSink } from "../ingress/mod.ts";
import type { SessionLookup } from "../state/registry.ts";
import { workItem, type WorkItemRef } from "../state/work_item.ts";
import { VERSION } from "../version.ts";
import {
  type ControlParser,
  type ControlView,
  type CycleCounts,
  type CycleFailure,
  type CycleState,
  type Handover,
  noteFailure,
} from "./_cycle.ts";
import { processItem } from "./_item.ts";
import { presence } from "./_presence.ts";
import { type Listed, reconcile } from "./_reconcile.ts";
import type { Ledger } from "./ledger.ts";
import type { PollSettings } from "./settings.ts";
import type { PollGitHub } from "./thread.ts";

export type { ControlParser, ControlView, CycleCounts, CycleFailure, Handover } from "./_cycle.ts";

/** The request counters a cycle reports (`GitHubClient.takeStats()`). */
export interface RequestStats {
  requests: number;
  notModified: number;
  rateLimitRemaining?: number;
}

/** Options of {@linkcode Poller}. */
export interface PollerOptions {
  gh: PollGitHub & { takeStats?(): RequestStats };
  /** The router (tests: a fake). */
  sink: RouteSink;
  ledger: Ledger;
  sessions: SessionLookup;
  control: ControlView;
  events: EventSink;
  parseControl: ControlParser;
  /** The running version (give-ups by another version are re-armed once). */
  version?: string;
  now?: () => number;
  /** `--dry-run`: post nothing on GitHub, clear no control record. */
  dryRun?: boolean;
  /** Told before each hand-over, with why (for `--dry-run`'s listing). */
  onHandover?: (h: Handover) => void;
}

/** What one cycle did. */
export interface CycleReport extends CycleCounts {
  requests: number;
  notModified: number;
  rateLimitRemaining?: number;
  durationMs: number;
  /** The cycle's failures, one per kind (empty when none): what the operator is told. */
  failed: CycleFailure[];
}

interface ListedItem {
  repo: string;
  item: WorkItemRef;
  issue: GitHubIssue;
}

/** The web host of an item, from its `html_url`. */
function hostOf(issue: GitHubIssue, fallback: string): string {
  try {
    return new URL(issue.html_url).host.toLowerCase();
  } catch {
    return fallback;
  }
}

/** Runs poll cycles. */
export class Poller {
  readonly #o: PollerOptions;

  constructor(opts: PollerOptions) {
    this.#o = opts;
  }

  /** Runs one cycle under `settings`; emits `poll.cycle` and returns its report. */
  async cycle(settings: PollSettings, opts: { signal?: AbortSignal } = {}): Promise<CycleReport> {
    const started = performance.now();
    const o = this.#o;
    const s: CycleState = {
      gh: o.gh,
      sink: o.sink,
      ledger: o.ledger,
      sessions: o.sessions,
      control: o.control,
      events: o.events,
      parseControl: o.parseControl,
      settings,
      counts: {
        itemsSeen: 0,
        spawns: 0,
        commentsForwarded: 0,
        closures: 0,
        failures: 0,
        errors: 0,
        interrupted: false,
        complete: true,
      },
      version: o.version ?? VERSION,
      now: o.now ?? Date.now,
      dryRun: o.dryRun ?? false,
      onHandover: o.onHandover,
      failed: new Map(),
    };
    o.gh.takeStats?.(); // count this cycle's requests only
    const listed: Listed = { covered: new Set(), scope: new Map() };
    const done = new Set<string>();
    await o.control.refresh?.();
    for (const source of settings.sources) {
      if (opts.signal?.aborted) break;
      for (const repo of source.repos) {
        const kinds = listed.scope.get(repo) ?? { issues: false, pullRequests: false };
        kinds.issues ||= source.issues;
        kinds.pullRequests ||= source.pullRequests;
        listed.scope.set(repo, kinds);
      }
      if (source.repos.length === 0 || !source.label) {
        const error = source.label
          ? `polling.sources[${source.index}] names no repos: add repos (OWNER/REPO)`
          : `polling.sources[${source.index}] has no label: set one (or routing.autoExecuteLabel)`;
        noteFailure(s, error, "config");
        s.counts.complete = false;
        s.events.emit("poll.provider_error", {
          repo: "",
          work_item: null,
          operation: "list",
          error,
          will_retry: true,
        });
        continue;
      }
      for (const repo of source.repos) {
        if (opts.signal?.aborted) break;
        const items = await this.#list(s, repo, source);
        for (const it of items ?? []) {
          if (done.has(it.item.ref)) continue; // listed by an earlier source
          if (opts.signal?.aborted) {
            s.counts.interrupted = true;
            break;
          }
          done.add(it.item.ref);
          listed.covered.add(it.item.ref);
          await this.#item(s, it);
        }
      }
    }
    if (opts.signal?.aborted) s.counts.interrupted = true;
    if (s.counts.complete && !s.counts.interrupted) await reconcile(s, listed, opts.signal);
    await s.ledger.flush();
    const stats = o.gh.takeStats?.() ?? { requests: 0, notModified: 0 };
    const report: CycleReport = {
      ...s.counts,
      requests: stats.requests,
      notModified: stats.notModified,
      ...(stats.rateLimitRemaining !== undefined
        ? { rateLimitRemaining: stats.rateLimitRemaining }
        : {}),
      durationMs: Math.round(performance.now() - started),
      failed: [...s.failed.values()],
    };
    s.events.emit("poll.cycle", {
      items_seen: report.itemsSeen,
      spawns: report.spawns,
      comments_forwarded: report.commentsForwarded,
      closures: report.closures,
      failures: report.failures,
      errors: report.errors,
      interrupted: report.interrupted,
      complete: report.complete,
      requests: report.requests,
      not_modified: report.notModified,
      ...(report.rateLimitRemaining !== undefined
        ? { rate_limit_remaining: report.rateLimitRemaining }
        : {}),
      duration_ms: report.durationMs,
    });
    return report;
  }

  /** Lists a repo's open labelled items of the kinds the source monitors; undefined on error. */
  async #list(
    s: CycleState,
    repo: string,
    source: PollSettings["sources"][number],
  ): Promise<ListedItem[] | undefined> {
    let issues: GitHubIssue[];
    try {
      issues = await s.gh.listIssues(repo, { labels: source.label, state: "open" });
    } catch (error) {
      noteFailure(s, error);
      s.counts.complete = false;
      s.events.emit("poll.provider_error", {
        repo,
        work_item: null,
        operation: "list",
        error: messageOf(error),
        will_retry: true,
      });
      return undefined;
    }
    const [owner, name] = repo.split("/");
    const out: ListedItem[] = [];
    for (const issue of issues) {
      if (issue.state !== "open") continue;
      const isPull = issue.pull_request !== undefined;
      if (isPull ? !source.pullRequests : !source.issues) continue;
      const host = hostOf(issue, s.settings.apiHost);
      try {
        const item = workItem({ host, owner, repo: name, number: issue.number });
        out.push({ repo, item, issue });
      } catch { /* not a work item GitHub would give: skip it */ }
    }
    if (out.length > 0) s.ledger.setHost(repo, out[0].item.host);
    return out;
  }

  async #item(s: CycleState, it: ListedItem): Promise<void> {
    s.counts.itemsSeen++;
    s.ledger.clearClosed(it.item.ref);
    const done = await processItem(s, it.repo, it.item, it.issue);
    if (!done) return;
    await presence(s, done.ctx, done.rec);
  }
}
