/**
 * The dispatcher seam: what the router hands on (one {@linkcode RoutedEvent} per work item an
 * event concerns) and what it gets back ({@linkcode DispatchOutcome}). Both ingress paths (the
 * poller and the webhook receiver) use one router and one dispatcher, so the same scenario leaves
 * the same events whichever way it arrived.
 *
 * @module
 */
import type { WorkItemRef } from "../state/work_item.ts";

/** Which ingress path an event came by (also the event log's `source`). */
export type Via = "gh-webhook" | "poll";

/**
 * What a routed event is, for the dispatcher:
 * - `comment`: an issue or PR conversation comment (`issue_comment`);
 * - `review`: a submitted PR review with a body (`pull_request_review`);
 * - `review_comment`: an inline comment on a PR's diff (`pull_request_review_comment`);
 * - `item`: the issue or PR itself changed (opened, labeled, edited, reopened, synchronize, …);
 * - `close`: the issue or PR was closed (or merged); never a prompt, never a spawn;
 * - `ci`: `workflow_run`, `check_run`, `check_suite`, `status` (no actor);
 * - `presence`: the poller's "this labelled item is armed and has no session" nudge.
 */
export type RoutedKind =
  | "comment"
  | "review"
  | "review_comment"
  | "item"
  | "close"
  | "ci"
  | "presence";

/** The comment, review or item an event is about: where reactions go and what notes link to. */
export interface Subject {
  kind: "issue_comment" | "review" | "review_comment" | "issue";
  /** The REST id (numeric) when known. */
  id?: number;
  /** The GraphQL node id when known (`IC_…`, `PRR_…`, `PRRC_…`). */
  nodeId?: string;
  /** Its `html_url`. */
  url?: string;
  /** The number of the issue or pull request the subject is (or is on). */
  number?: number;
  /** Inline review comments: the file and line (`line`, else `original_line`). */
  path?: string;
  line?: number | null;
}

/** One routed event for one work item. */
export interface RoutedEvent {
  /** The work item this value is for. */
  workItem: WorkItemRef;
  kind: RoutedKind;
  /** `X-GitHub-Event` (or the poller's equivalent). */
  ghEvent: string;
  /** `payload.action`, or `""`. */
  action: string;
  /** `X-GitHub-Delivery`, or `poll-comment-<id>`, `poll-presence-<ref>-<uuid>`, `poll-close-<ref>-<state>`. */
  deliveryId: string;
  via: Via;
  /**
   * Who acted: the author of a comment or review that was written (`created`, `submitted`), else
   * `sender.login` (an edit, a deletion, a dismissal; issue and PR events); `null` for CI events.
   */
  actor: string | null;
  /**
   * The comment's or review's author when someone else acted (an edit, a deletion, a dismissal
   * of another login's words); absent otherwise.
   */
  author?: string;
  /** The item carries (or was just given) the auto-execute label. */
  labeled: boolean;
  /** The comment's or review's body (what control keywords are read from); `""` for other kinds. */
  text: string;
  subject?: Subject;
  /** `close` events only: how it closed, and whether the close is this work item's own. */
  close?: { state: "closed" | "merged"; own: boolean };
  /** When this work item was reached through a PR's linkage: the PR's ref. */
  linkedFrom?: string;
  /** The payload as delivered (GitHub's webhook shape; the poller builds the same shape). */
  payload: Record<string, unknown>;
}

/**
 * The dispatcher's answer:
 * - `delivered`: done (a prompt delivered, a session spawned or closed, a command applied);
 * - `settled`: decided without delivering and never to be retried (`awaiting-start`,
 *   `session-paused`, `spawn-policy`, `ambiguous`, …);
 * - `failed`: not done; `retry` says whether trying the same delivery again may help.
 */
export type DispatchOutcome =
  | { status: "delivered"; detail?: string }
  | { status: "settled"; reason: string }
  | { status: "failed"; reason: string; retry: boolean };

/** The seam: the router hands each routed event here and waits for its outcome. */
export interface Dispatcher {
  dispatch(event: RoutedEvent, opts?: { signal?: AbortSignal }): Promise<DispatchOutcome>;
}
