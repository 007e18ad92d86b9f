/**
 * The router both ingress paths share: one event in, one typed value per work item it concerns
 * out to the {@linkcode Dispatcher}, and a `routing.*` event for every decision. See
 * `docs/routing.md`.
 *
 * ```ts
 * const router = new Router({ dispatcher, sessions, github, events: log, policy });
 * await router.route({ ghEvent: "issue_comment", deliveryId, via: "gh-webhook", payload });
 * router.setPolicy(policyFromConfig(reloaded)); // the next event uses it; the dedup cache stays
 * ```
 *
 * @module
 */
import {
  type Dispatcher,
  type DispatchOutcome,
  reasonOf,
  type RoutedEvent,
  type SettledReason,
} from "../dispatch/mod.ts";
import type { EventSink, Level } from "../events/mod.ts";
import { GitHubError, isSelfAuthored } from "../github/mod.ts";
import type { SessionLookup } from "../state/registry.ts";
import { repoOf } from "../state/work_item.ts";
import { type Actors, actorsOf, areAuthorized, isLifecycleClose } from "./actor.ts";
import { DedupCache, DEFAULT_DEDUP_CACHE_SIZE } from "./dedup.ts";
import { branchOnly, type Candidate, extractWorkItems, locate, prRef } from "./extract.ts";
import { isLabeled } from "./labeled.ts";
import { eventFilter } from "./policy.ts";
import { closeStateOf, factsOf, kindOf, subjectOf, textOf } from "./shape.ts";
import { messageOf } from "../errors.ts";
import type {
  DropReason,
  IngressEvent,
  RouteResult,
  RouterGitHub,
  RouteSink,
  RoutingPolicy,
} from "./types.ts";

/** Options of {@linkcode Router}. */
export interface RouterOptions {
  dispatcher: Dispatcher;
  /** The live sessions (which work item an event goes to, and which refs are never questioned). */
  sessions: SessionLookup;
  /** PR linkage over GraphQL and the existence check of branch-named refs. */
  github: RouterGitHub;
  events: EventSink;
  policy: RoutingPolicy;
  /** How many delivery ids the at-most-once cache holds (`routing.dedupCacheSize`); 1024. */
  dedupCacheSize?: number;
}

const DROP_LEVEL: Partial<Record<DropReason, Level>> = {
  "disabled-event": "debug",
  "unauthorized-actor": "warning",
};

/**
 * The settled reasons after which the same delivery id is let through again: only an item that
 * was not armed, which a label added later may arm.
 */
const RELEASES: Readonly<Record<SettledReason, boolean>> = {
  "duplicate-delivery": false,
  "comment-deleted": false,
  "ambiguous": false,
  "session-paused": false,
  "session-exists": false,
  "spawn-policy": true,
  "awaiting-start": false,
  "no-session": false,
  "hook-refused": false,
  "input-refused": false,
  "unauthorized-actor": false,
  "not-armed": false,
  "command-rejected": false,
  "command": false,
  "verdict": false,
  "verdict-ignored": false,
  "phase-label": false,
  // kept in the suspension record, delivered from there on resume
  "suspended": false,
  "held": false,
  "quiet-action": false,
  "budget-exceeded": false,
};

/**
 * Dispatch outcomes after which the same delivery id is let through again (forgotten by the
 * dedup cache): a failure worth retrying, and a settle that may change (`RELEASES`).
 */
function releases(outcome: DispatchOutcome): boolean {
  return (outcome.status === "failed" && outcome.retry) ||
    (outcome.status === "settled" && RELEASES[outcome.reason]);
}

/** The text's author when someone else acted (an edit, a deletion, a dismissal), else `null`. */
function otherAuthor(who: Actors): string | null {
  return who.author !== null && who.author !== who.actor ? who.author : null;
}

/** Per-event context the steps share. */
interface Ctx {
  ev: IngressEvent;
  action: string;
  policy: RoutingPolicy;
  live: Map<string, boolean>;
}

/** The router: filter, dedup, extract, link, check, authorize, hand on. */
export class Router implements RouteSink {
  readonly #dispatcher: Dispatcher;
  readonly #sessions: SessionLookup;
  readonly #github: RouterGitHub;
  readonly #events: EventSink;
  readonly #dedup: DedupCache;
  #policy: RoutingPolicy;

  constructor(opts: RouterOptions) {
    this.#dispatcher = opts.dispatcher;
    this.#sessions = opts.sessions;
    this.#github = opts.github;
    this.#events = opts.events;
    this.#policy = opts.policy;
    this.#dedup = new DedupCache(opts.dedupCacheSize ?? DEFAULT_DEDUP_CACHE_SIZE);
  }

  /** The policy in force. */
  get policy(): RoutingPolicy {
    return this.#policy;
  }

  /** Hot reload: the next event uses `policy`. The dedup cache is kept. */
  setPolicy(policy: RoutingPolicy): void {
    this.#policy = policy;
  }

  /** Routes one event. Throws only when a session lookup or the dispatcher's plumbing does. */
  async route(ev: IngressEvent, opts: { signal?: AbortSignal } = {}): Promise<RouteResult> {
    const ctx: Ctx = {
      ev,
      action: typeof ev.payload.action === "string" ? ev.payload.action : "",
      policy: this.#policy,
      live: new Map(),
    };
    if (!eventFilter(ctx.policy).includes(ev.ghEvent)) {
      return this.#drop(ctx, "disabled-event", actorsOf(ev.ghEvent, ev.payload), []);
    }
    if (ev.deliveryId && !this.#dedup.remember(ev.deliveryId)) {
      return this.#drop(ctx, "duplicate-delivery", actorsOf(ev.ghEvent, ev.payload), []);
    }
    try {
      const result = await this.#route(ctx, opts.signal);
      const release = result.status === "routed" &&
        result.outcomes.some((o) => releases(o.outcome));
      if (release && ev.deliveryId) this.#dedup.release(ev.deliveryId);
      return result;
    } catch (error) {
      // nothing was decided: let a redelivery try again
      if (ev.deliveryId) this.#dedup.release(ev.deliveryId);
      throw error;
    }
  }

  async #route(ctx: Ctx, signal: AbortSignal | undefined): Promise<RouteResult> {
    const { ev, action, policy } = ctx;
    const items = await this.#checkExistence(ctx, await this.#extract(ctx));
    const refs = items.map((c) => c.item.ref);
    const who = actorsOf(ev.ghEvent, ev.payload);
    const { actor } = who;
    const author = otherAuthor(who);
    if (items.length === 0) return this.#drop(ctx, "no-work-item", who, refs);
    const text = textOf(ev.ghEvent, ev.payload);
    if (isSelfAuthored(text)) return this.#drop(ctx, "self-authored", who, refs);
    const close = isLifecycleClose(ev.ghEvent, action);
    if (!close && !areAuthorized(ev.ghEvent, who, policy.authorizedUsers, policy.authorizedBots)) {
      return this.#drop(ctx, "unauthorized-actor", who, refs);
    }
    const targets = close ? items : [await this.#preferred(ctx, items)];
    const base = {
      kind: kindOf(ev.ghEvent, action, { presence: ev.presence }),
      ghEvent: ev.ghEvent,
      action,
      deliveryId: ev.deliveryId,
      via: ev.via,
      actor,
      ...(author ? { author } : {}),
      labeled: isLabeled(ev.payload, policy.autoExecuteLabel),
      text,
      ...factsOf(ev.ghEvent, ev.payload),
    };
    const subject = subjectOf(ev.ghEvent, ev.payload);
    const outcomes: { event: RoutedEvent; outcome: DispatchOutcome }[] = [];
    for (const target of targets) {
      const event: RoutedEvent = { ...base, workItem: target.item };
      if (subject) event.subject = { ...subject };
      if (target.linkedFrom) event.linkedFrom = target.linkedFrom;
      if (close) {
        // only the closed issue or PR itself is named by the event as its entity
        event.close = {
          state: closeStateOf(ev.ghEvent, ev.payload),
          own: target.sources.has("entity"),
        };
      }
      const outcome = await this.#dispatch(event, signal);
      this.#routed(event, outcome);
      outcomes.push({ event, outcome });
    }
    return { status: "routed", outcomes };
  }

  /** Extraction with PR linkage: the caller's `closingIssues`, else GitHub's (GraphQL). */
  async #extract(ctx: Ctx): Promise<Candidate[]> {
    const { ev } = ctx;
    let closing = ev.closingIssues;
    const where = closing ? undefined : locate(ev.ghEvent, ev.payload);
    if (where?.pr) {
      try {
        closing = await this.#github.closingIssues(`${where.owner}/${where.repo}`, where.pr.number);
      } catch (error) {
        this.#events.emit("routing.linkage_unavailable", {
          work_item: prRef(where)?.ref ?? null,
          ...this.#base(ctx),
          error: messageOf(error),
        });
      }
    }
    return extractWorkItems(ev.ghEvent, ev.payload, closing ?? []);
  }

  /** Drops refs invented by a branch name that GitHub says do not exist. */
  async #checkExistence(ctx: Ctx, items: Candidate[]): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (const c of items) {
      if (branchOnly(c) && !(await this.#isLive(ctx, c.item.ref))) {
        try {
          await this.#github.getIssue(repoOf(c.item), c.item.number);
        } catch (error) {
          if (error instanceof GitHubError && error.status === 404) {
            this.#events.emit("routing.linkage_dropped", {
              work_item: c.item.ref,
              linked_from: c.linkedFrom ?? null,
              ...this.#base(ctx),
              reason: "not-found",
            });
            continue;
          }
          // existence could not be established: the ref keeps its place
        }
      }
      out.push(c);
    }
    return out;
  }

  /** The first item with a live session, else the first item. */
  async #preferred(ctx: Ctx, items: Candidate[]): Promise<Candidate> {
    if (items.length === 1) return items[0];
    for (const c of items) if (await this.#isLive(ctx, c.item.ref)) return c;
    return items[0];
  }

  async #isLive(ctx: Ctx, ref: string): Promise<boolean> {
    let live = ctx.live.get(ref);
    if (live === undefined) {
      live = (await this.#sessions.live(ref)) !== undefined;
      ctx.live.set(ref, live);
    }
    return live;
  }

  async #dispatch(event: RoutedEvent, signal: AbortSignal | undefined): Promise<DispatchOutcome> {
    try {
      return await this.#dispatcher.dispatch(event, { signal });
    } catch (error) {
      const message = messageOf(error);
      return { status: "failed", stage: "dispatcher", cause: "error", message, retry: true };
    }
  }

  #base(ctx: Ctx) {
    return { gh_event: ctx.ev.ghEvent, action: ctx.action, delivery_id: ctx.ev.deliveryId };
  }

  #drop(ctx: Ctx, reason: DropReason, who: Actors, workItems: string[]): RouteResult {
    const { actor } = who;
    this.#events.emit(
      "routing.dropped",
      { reason, ...this.#base(ctx), actor, author: otherAuthor(who), work_items: workItems },
      { level: DROP_LEVEL[reason] ?? "info" },
    );
    return { status: "dropped", reason, actor };
  }

  #routed(event: RoutedEvent, outcome: DispatchOutcome): void {
    this.#events.emit("routing.routed", {
      work_item: event.workItem.ref,
      kind: event.kind,
      gh_event: event.ghEvent,
      action: event.action,
      delivery_id: event.deliveryId,
      actor: event.actor,
      author: event.author ?? null,
      labeled: event.labeled,
      outcome: outcome.status,
      reason: reasonOf(outcome),
      will_retry: outcome.status === "failed" && outcome.retry,
      linked_from: event.linkedFrom ?? null,
    }, { level: outcome.status === "failed" ? "warning" : "info" });
  }
}
