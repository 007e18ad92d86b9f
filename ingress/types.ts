/**
 * The router's contract, shared by both ingress paths: the webhook receiver hands it each
 * verified delivery, the poller hands it the events it builds in the same (webhook) shape.
 *
 * @module
 */
import type { DispatchOutcome, RoutedEvent, Via } from "../dispatch/mod.ts";
import type { GitHubIssue, IssueRef, RepoName } from "../github/mod.ts";

/** An event as the router takes it. */
export interface IngressEvent {
  /** `X-GitHub-Event`: `issues`, `issue_comment`, `pull_request`, `pull_request_review`, … */
  ghEvent: string;
  /** `X-GitHub-Delivery`, or the poller's `poll-comment-<nodeId>`, `poll-presence-…`, `poll-close-…`. */
  deliveryId: string;
  via: Via;
  /** The parsed payload, shaped like GitHub's webhook payload for `ghEvent`. */
  payload: Record<string, unknown>;
  /**
   * A PR's `closingIssuesReferences` when the caller already knows them (the poller asked); when
   * absent the router asks GitHub (GraphQL) for PR-shaped events.
   */
  closingIssues?: IssueRef[];
  /**
   * The poller's presence nudge ("this labelled item is armed and has no session"): routed as
   * kind `presence` instead of `item`. Webhook deliveries never set it.
   */
  presence?: boolean;
  /**
   * When the daemon took the event (`performance.now()` of the thread routing it). What the
   * router reads for it (the config) need only be as new as this: a `stat` taken since serves.
   */
  receivedAt?: number;
}

/** Why the router dropped an event before any dispatcher saw it (`routing.dropped`'s `reason`). */
export type DropReason =
  | "disabled-event"
  | "duplicate-delivery"
  | "no-work-item"
  | "self-authored"
  | "unauthorized-actor";

/** What became of one event. */
export type RouteResult =
  | { status: "dropped"; reason: DropReason; actor?: string | null }
  | { status: "routed"; outcomes: { event: RoutedEvent; outcome: DispatchOutcome }[] };

/** The routing policy, re-read on hot reload (the next event uses the new one). */
export interface RoutingPolicy {
  /** `webhooks.ghWebhook.events`: the event filter. */
  events: readonly string[];
  /** `routing.authorizedUsers` (case-insensitive logins); empty drops every human event. */
  authorizedUsers: readonly string[];
  /**
   * `routing.authorizedBots`: the bots acted on (a bot is never authorized through
   * `authorizedUsers`). Absent: none.
   */
  authorizedBots?: readonly string[];
  /** `routing.autoExecuteLabel` (an empty label never matches). */
  autoExecuteLabel: string;
}

/** The GitHub reads the router makes (a subset of `GitHubClient`). */
export interface RouterGitHub {
  closingIssues(repo: RepoName, number: number): Promise<IssueRef[]>;
  getIssue(repo: RepoName, number: number): Promise<GitHubIssue>;
}

/** What an ingress path hands events to: the {@linkcode Router} (tests may stand a fake here). */
export interface RouteSink {
  route(event: IngressEvent, opts?: { signal?: AbortSignal }): Promise<RouteResult>;
}
