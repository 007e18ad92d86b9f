/**
 * The shapes the status page's API answers with (`GET /api/v1/state`: {@linkcode UiState},
 * `GET /api/v1/items/REF`: {@linkcode ItemView}), the JSON Schemas of `schema/ui/` in types, and
 * the seams the server is handed: the controls ({@linkcode UiControls}, each the CLI verb's own
 * code) and the web terminal ({@linkcode TerminalSeam}). Times are UTC ISO-8601 strings.
 *
 * @module
 */

/** `ui.terminal`: whether the item page shows the pane, and whether it takes keys. */
export type TerminalMode = "off" | "read-only" | "interactive";

/** An agent's open question (`the-loop ask`). */
export interface QuestionView {
  ref: string;
  url: string;
  question: string;
  summary: string;
  since: string;
  ageSeconds: number;
  commentUrl: string;
}

/** An item waiting at a human node of its loop. */
export interface GateView {
  ref: string;
  url: string;
  loop: string;
  node: string;
  phase: string;
  since: string | null;
  ageSeconds: number | null;
  /** The gate's outcomes (what the buttons send). */
  outcomes: string[];
}

/** An operation a failing `onError: suspend` hook parked. */
export interface SuspensionView {
  id: string;
  ref: string;
  url: string;
  point: string;
  hook: string;
  error: string;
  mode: string;
  since: string;
  held: number;
  resumed: { at: string; by: string } | null;
  escalatedAt: string | null;
}

/** An item a budget (or the loop guard) paused. */
export interface BudgetPauseView {
  id: string;
  ref: string;
  url: string;
  budget: string;
  used: number;
  limit: number;
  who: string | null;
  since: string;
  resumed: { at: string; by: string } | null;
}

/** A live session whose harness is gone (its tmux session, or its pane, dead). */
export interface DeadSessionView {
  ref: string;
  url: string;
  harness: string;
  status: string;
  tmuxTarget: string;
  lastEventAt: string | null;
  why: string;
}

/** A recent failure in the event log. */
export interface FailureView {
  ts: string;
  event: string;
  level: string;
  ref: string | null;
  message: string;
}

/** A budget's use in the session's window (`used` null: not measured). */
export interface UsageView {
  budget: string;
  used: number | null;
  limit: number;
}

/** How a session's harness is doing. */
export type Liveness = "alive" | "dead" | "headless" | "unknown";

/** A work item's session. */
export interface SessionView {
  status: "active" | "paused" | "closed";
  harness: string;
  harnessSessionId: string;
  tmuxTarget: string;
  liveness: Liveness;
  createdAt: string;
  lastEventAt: string | null;
  awaitingInput: boolean;
}

/** One row of the items table. */
export interface ItemRow {
  ref: string;
  url: string;
  title: string;
  loop: string | null;
  node: string | null;
  phase: string | null;
  loopStatus: "active" | "escalated" | "completed" | null;
  session: SessionView | null;
  lastActivity: string | null;
  usage: UsageView[];
  suspended: boolean;
}

/** A hook's calls at one point, from the `hooks.*` events in the log's tail. */
export interface HookStat {
  point: string;
  hook: string;
  calls: number;
  p50Ms: number | null;
  p99Ms: number | null;
  failures: number;
  refusals: number;
  timeouts: number;
  circuit: "closed" | "open" | "half-open";
  circuitRetryAt: string | null;
}

/** One figure of the health strip: when it was true, and when it stops being worth trusting. */
export interface Freshness {
  /** When the figure was last true (null: never seen). */
  at: string | null;
  /** Older than this (by the reader's clock) it is stale; null: no age bound. */
  staleAfterSeconds: number | null;
  /** Stale at `generatedAt` (never seen, its daemon not running, or too old). */
  stale: boolean;
}

/** The health strip. */
export interface HealthView {
  poller: Freshness & {
    running: boolean;
    lastCycleAt: string | null;
    intervalSeconds: number | null;
    /** Seconds since the last cycle ended, past the interval (0 when on time). */
    lagSeconds: number | null;
  };
  webhook: Freshness & { running: boolean; lastDeliveryAt: string | null };
  rateLimit: Freshness & { remaining: number | null };
  queue: Freshness & {
    /** Deliveries held by suspensions and budget pauses. */
    held: number;
    /** Deliveries marked in flight in sessions (pasted, not yet noted). */
    inFlight: number;
    /** Bytes of the webhook inbox's segments on disk. */
    inboxBytes: number;
  };
  version: string;
  uptime: Freshness & { startedAt: string; seconds: number };
}

/** `GET /api/v1/state`. */
export interface UiState {
  version: 1;
  generatedAt: string;
  stateRoot: string;
  terminal: TerminalMode;
  attention: {
    questions: QuestionView[];
    gates: GateView[];
    suspensions: SuspensionView[];
    budgetPauses: BudgetPauseView[];
    deadSessions: DeadSessionView[];
    failures: FailureView[];
  };
  items: ItemRow[];
  hooks: HookStat[];
  health: HealthView;
  /** The event log and its size when read: `GET /api/v1/events` resumes from `end`. */
  events: { path: string; end: number };
}

/** One event of an item's trail. */
export interface TrailEvent {
  /** The byte offset just past the event's line (its id on the stream). */
  offset: number;
  ts: string;
  event: string;
  level: string;
  source: string;
  /** The type's own fields (common fields left out). */
  fields: Record<string, unknown>;
}

/** One hook call on an item. */
export interface HookDecision {
  ts: string;
  point: string;
  hook: string;
  kind: string;
  disposition: string;
  durationMs: number | null;
  changed: string[];
}

/** A loop move, as the position's history holds it. */
export interface MoveView {
  at: string;
  kind: string;
  from: string;
  to: string;
  outcome: string;
  by: string;
}

/** `GET /api/v1/items/REF`. */
export interface ItemView {
  version: 1;
  generatedAt: string;
  item: ItemRow;
  question: QuestionView | null;
  gate: GateView | null;
  suspension: SuspensionView | null;
  budgetPause: BudgetPauseView | null;
  history: MoveView[];
  trail: TrailEvent[];
  hooks: HookDecision[];
  terminal: {
    mode: TerminalMode;
    /** A live tmux session to show (and the mode is not `off`). */
    available: boolean;
    /** The WebSocket's path, when available. */
    path: string | null;
  };
}

/** What a control button asks (each the same path as its CLI verb). */
export type ControlRequest =
  | { action: "reply"; ref: string; text: string }
  | { action: "verdict"; ref: string; outcome: string }
  | { action: "pause" | "resume" | "stop"; ref: string }
  | { action: "resume-suspension"; id: string };

/** A control's name. */
export type ControlAction = ControlRequest["action"];

/** What a control did: `ok` as the CLI's exit 0, and the lines it printed (or its error). */
export interface ControlAnswer {
  ok: boolean;
  message: string;
}

/**
 * Runs a control: the caller (the daemon commands, `the-loop ui`) wires each action to its CLI
 * verb (`reply`, `verdict`, `sessions pause|resume|stop`, `hooks resume`).
 */
export type UiControls = (req: ControlRequest) => Promise<ControlAnswer>;

// the web terminal's seam is the terminal's own (`ui/terminal/types.ts`): one shape for both sides
export type { TerminalSeam, TerminalTarget } from "./terminal/types.ts";
/** One embedded file the server serves. */
export type { TerminalAsset as Asset } from "./terminal/types.ts";
