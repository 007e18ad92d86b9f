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

/** The comment, review or item an event is about: where reactions go and what comments link to. */
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

/**
 * The issue or pull request an event's payload carries: the work item itself, or, for an event
 * reached through a pull request's linkage, that pull request.
 */
export interface ItemFacts {
  kind: "issue" | "pull_request";
  /** Its `html_url`. */
  url?: string;
  title?: string;
  /** `open` or `closed`. */
  state?: string;
  /** A pull request's head branch. */
  branch?: string;
  /** The harness a `harness:<name>` label on it names (lower-cased; checked at the spawn). */
  harness?: string;
}

/** What a CI event reports: its workflow run, check run or check suite, or its commit status. */
export interface CiFacts {
  /** The run's name, or a status's `context`. */
  name?: string;
  status?: string;
  /** The run's conclusion, or a status's `state`. */
  conclusion?: string;
  branch?: string;
  /** The run's `html_url`, or a status's `target_url`. */
  url?: string;
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
  /**
   * The repository the event happened in (`repository.full_name`; a linked pull request's may
   * be another than the work item's), `""` when the payload names none.
   */
  repository: string;
  /** The issue or pull request the event is on, when the payload carries one (never for CI). */
  item?: ItemFacts;
  /** A submitted review's state (`approved`, `changes_requested`, `commented`). */
  reviewState?: string;
  /** The label a `labeled` or `unlabeled` event added or removed. */
  label?: string;
  /** CI events only: what the run or status reports. */
  ci?: CiFacts;
  /**
   * An `edited` event's previous values (GitHub's `changes.<field>.from`): an issue's or pull
   * request's `title` / `body` / `base` (the base branch's ref), a comment's or review's `body`.
   * Absent when the payload carries no `changes` (then nothing the agent reads changed).
   */
  changed?: { title?: string; body?: string; base?: string };
  /** The actor is a bot (a login ending in `[bot]`, or `type: "Bot"`). */
  actorIsBot?: boolean;
}

/**
 * Why an event was settled: decided without delivering, and never retried (what each means: the
 * exhaustive {@linkcode SETTLED_REASONS}).
 */
export type SettledReason =
  | "duplicate-delivery"
  | "comment-deleted"
  | "ambiguous"
  | "session-paused"
  | "session-exists"
  | "spawn-policy"
  | "awaiting-start"
  | "no-session"
  | "hook-refused"
  | "input-refused"
  | "unauthorized-actor"
  | "not-armed"
  | "command-rejected"
  | "command"
  | "verdict"
  | "verdict-ignored"
  | "phase-label"
  | "suspended"
  | "held"
  | "quiet-action"
  | "budget-exceeded";

/** Every settled reason, and what it says. */
export const SETTLED_REASONS: Readonly<Record<SettledReason, string>> = {
  "duplicate-delivery": "the session took this delivery id already (or holds it in a batch)",
  "comment-deleted": "a deleted comment or review: nothing to say to the session",
  "ambiguous": "the comment carries two different control keywords; none is applied",
  "session-paused": "the session is paused: the event is dropped (`dispatch.dropped`)",
  "session-exists": "a presence nudge for an item that has a live session",
  "spawn-policy": "no session, and the item is not armed (`dispatch.dropped`; let through again)",
  "awaiting-start": "no session, armed, and no start recorded yet (`dispatch.dropped`)",
  "no-session": "a CI event, or an event after a recorded start, with no session to take it",
  "hook-refused": "a `work_item_start` or `session_spawn` hook refused (one ⚠️ comment)",
  "input-refused": "an `input_received` hook refused the comment or the command",
  "unauthorized-actor": "a control keyword with nobody to act for",
  "not-armed": "a start keyword on an item that is not armed",
  "command-rejected": "the control action refused the command (e.g. `nothing-to-resume`)",
  "command": "a control command was applied (or was a no-op)",
  "verdict": "a person's gate keyword resolved the item's gate (consumed, never delivered)",
  "verdict-ignored":
    "a gate keyword where no gate waits for it (or naming no outcome of the gate): nothing moved",
  "phase-label":
    "a `loop:<phase>` label added or removed (the loop's own publish): nothing to tell the agent",
  "suspended":
    "an `onError: suspend` hook broke: the operation is parked (`hooks.suspended`, one ⏸️ comment)",
  "held":
    "its work item is suspended: the event is held, on disk, and delivered in order on resume",
  "quiet-action":
    "an item action `routing.deliver` leaves out (an assignment, a milestone, an edit that changed nothing the agent reads, a passing CI run): no turn",
  "budget-exceeded":
    "the item crossed a `routing.budgets` limit or the loop guard: its session is paused (one comment, `budget.exceeded`) and the event is held",
};

/** The settled reasons that are also a `dispatch.dropped` event. */
export type DroppedReason =
  | "spawn-policy"
  | "awaiting-start"
  | "session-paused"
  | "quiet-action";

/** What a delivered event did. */
export type DeliveredDetail =
  | "delivered"
  | "respawned"
  | "spawned"
  | "closed"
  | "kept-open"
  | "no-session";

/** The step a dispatch failed at (the `stage` of `dispatch.failed`). */
export type FailureStage =
  | "queue"
  | "dispatcher"
  | "dispatch"
  | "harness"
  | "workspace"
  | "spawn"
  | "register"
  | "respawn"
  | "deliver";

/** Every stage, and what failed there. */
export const FAILURE_STAGES: Readonly<Record<FailureStage, string>> = {
  "queue": "aborted while it waited for its turn or its batch",
  "dispatcher":
    "the dispatcher rejected instead of answering (the router's catch; e.g. the journal's write)",
  "dispatch": "the dispatcher itself threw (a bug, or a broken registry)",
  "harness": "no adapter for `defaultHarness` (never retried)",
  "workspace": "preparing the work item's checkout",
  "spawn": "launching the harness",
  "register": "registering the launched session (the harness is ended)",
  "respawn": "relaunching a harness found dead at delivery",
  "deliver": "handing the prompt to the live session",
};

/**
 * Why it failed: `aborted` (the dispatch's signal fired: the daemon is stopping), `timeout` (a
 * harness call outlived `dispatchTimeoutSeconds`) or `error` (anything else).
 */
export type FailureCause = "aborted" | "timeout" | "error";

/** A dispatch that did not get done. */
export interface DispatchFailure {
  status: "failed";
  stage: FailureStage;
  cause: FailureCause;
  /** What went wrong, for people (the error's message). */
  message: string;
  /** Whether trying the same delivery again may help. */
  retry: boolean;
}

/**
 * The dispatcher's answer:
 * - `delivered`: done (a prompt delivered, a session spawned or closed, a command applied);
 * - `settled`: decided without delivering and never to be retried ({@linkcode SettledReason});
 * - `failed`: not done ({@linkcode DispatchFailure}).
 */
export type DispatchOutcome =
  | { status: "delivered"; detail?: DeliveredDetail }
  | { status: "settled"; reason: SettledReason }
  | DispatchFailure;

/** Stages whose failures read as their message alone. */
const BARE: Readonly<Partial<Record<FailureStage, true>>> = { queue: true, dispatcher: true };

/**
 * An outcome's reason in words (events' `reason`): a settled reason, `<stage>: <message>`, or
 * null. A failure at `queue` (aborted before any step began: `aborted`) or at `dispatcher` (the
 * dispatcher rejected: its error's message) is its message alone, as those reasons always read.
 */
export function reasonOf(outcome: DispatchOutcome): string | null {
  switch (outcome.status) {
    case "delivered":
      return null;
    case "settled":
      return outcome.reason;
    case "failed":
      return BARE[outcome.stage] ? outcome.message : `${outcome.stage}: ${outcome.message}`;
  }
}

/** The seam: the router hands each routed event here and waits for its outcome. */
export interface Dispatcher {
  dispatch(event: RoutedEvent, opts?: { signal?: AbortSignal }): Promise<DispatchOutcome>;
}

/**
 * What the agent's and the operator's verbs ask of the running daemon, through its control
 * endpoint: `advance` (the agent's claim that its node is done, `--outcome`, maybe `--node`),
 * `ask` (the agent's question to a person), `reply` (an operator's answer from the CLI) and
 * `resumed` (`sessions resume` resumed a parked item's position in the files: the agent is to
 * be given its node's assignment again). Each runs in its work item's queue, like an event.
 */
export type VerbRequest =
  | { verb: "advance"; ref: string; outcome: string; node?: string }
  | { verb: "ask"; ref: string; question: string; summary?: string }
  | { verb: "reply"; ref: string; text: string; actor: string }
  /** A person's verdict at the item's gate (`the-loop gate`, the status page), as its keyword. */
  | { verb: "verdict"; ref: string; outcome: string; actor: string }
  | {
    verb: "resumed";
    ref: string;
    /** `hooks resume`: the suspension it resumed (and who), resumed here even if its mark was lost. */
    suspension?: string;
    by?: string;
  };

/** A verb's name. */
export type VerbName = VerbRequest["verb"];

/**
 * A verb's answer: the exit code the CLI exits with (0 done or a no-op, 1 refused or failed, 2
 * a malformed request), one line for people, and what `--format json` prints.
 */
export interface VerbResult {
  exit: 0 | 1 | 2;
  message: string;
  data?: Record<string, unknown>;
}
