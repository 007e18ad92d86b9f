/**
 * The seams inside dispatch, written down before their parts so each part can be built and
 * tested on its own: the harness adapters (what argv boots or resumes `claude` and
 * `cursor-agent`), the runners (a headless subprocess, or a tmux session a human can attach to;
 * `spawn` launches, `deliver` never does: it answers whether the harness took the prompt), the
 * workspaces (a checkout per work item), harness trust, the control actions both the
 * dispatcher (a keyword in a comment) and the CLI verbs (`sessions pause …`) apply, and the
 * dispatcher's own ports (the hooks, the GitHub writes, the registry, the control records, the
 * start markers) with the options that bring them together ({@linkcode SessionDispatcherOptions}).
 * This file imports no part of dispatch/ but the prompt templates' type.
 *
 * @module
 */
import type { RoutingConfig } from "../config/mod.ts";
import { HARNESS_KEYS, type HarnessKey } from "../config/types.ts";
import type { EventSink } from "../events/mod.ts";
import type { ReactionContent, ReactionTarget } from "../github/mod.ts";
import type { ContextOf, PointName } from "../lifecycle/sdk/mod.ts";
import type { Suspension } from "../lifecycle/mod.ts";
import type { WorkItemRef } from "../state/work_item.ts";
import type { LoopPositions, LoopSet } from "../loops/mod.ts";
import type { ControlCommand, ControlRecord, ControlStore } from "../state/control.ts";
import type { SessionRecord } from "../state/registry.ts";
import type { PromptTemplates } from "./prompts.ts";
import type { SuspensionStore } from "./suspensions/mod.ts";

/** The harnesses the-loop drives (`docs/harnesses.md`: one section each). */
export type HarnessName = HarnessKey;

/** Every harness, in the order the docs list them (the config's one list). */
export const HARNESS_NAMES: readonly HarnessName[] = HARNESS_KEYS;

/**
 * How much the agent may do unattended (`routing.approvalMode`), mapped per harness to its own
 * flags: `ask` (it asks before acting; headless, what needs asking is refused), `auto-edit` (it
 * edits files in its workspace without asking), `auto-all` (it runs anything without asking).
 */
export type ApprovalMode = "ask" | "auto-edit" | "auto-all";

/** What the config says of every run of a harness, beside `harnessArgs` (its flags). */
export interface HarnessSettings {
  approvalMode: ApprovalMode;
  /** `routing.harnessModels.<harness>.model`: the harness's own model name. */
  model?: string;
  /** `routing.harnessModels.<harness>.effort`, for the harnesses that take one. */
  effort?: string;
  /** `harnessTrust.enabled`: the workspace is trusted by the harness's own flag where it has one. */
  trust: boolean;
}

/** Which form of the harness a set of flags is for. */
export type HarnessMode = "headless" | "interactive";

/**
 * How a new conversation's id is had, before the harness prints anything where it can be:
 * `preassign` (the-loop makes a UUID and hands it over: `--session-id`), `issue` (a command of
 * the harness prints a fresh one: `cursor-agent create-chat`), `output` (only the harness's own
 * output names it: a headless run's JSON, or for a tmux session what it leaves on disk).
 */
export type IdSource =
  | { kind: "preassign" }
  | {
    kind: "issue";
    /** The arguments (after `program`) of the command that prints a new conversation's id. */
    args(o: { extraArgs: string[]; settings?: HarnessSettings }): string[];
    /** The id in what it printed. */
    parse(stdout: string): string | undefined;
  }
  | { kind: "output" };

/** The argv-building inputs every adapter call shares. */
export interface HarnessCall {
  /** `routing.harnessArgs.<harness>`: the operator's flags (theirs win over the adapter's). */
  extraArgs: string[];
  /** The config's settings; absent: no flags of the adapter's own (a bare test rig). */
  settings?: HarnessSettings;
}

/** How a harness is started and continued; argv only (the runner decides how to host it). */
export interface HarnessAdapter {
  name: HarnessName;
  /** The executable looked up on PATH (`claude`, `cursor-agent`, `codex`, `gemini`, `opencode`). */
  program: string;
  /** How a new conversation gets its id. */
  ids: IdSource;
  /** Whether `id` can be handed back to resume (a malformed recorded id means a fresh boot). */
  isResumableId(id: string): boolean;
  /**
   * Interactive boot (tmux): a new conversation starting on `prompt`; `sessionId` is the id the
   * adapter's {@linkcode IdSource} gave (`""` for `output`: the harness names it itself).
   */
  interactive(o: HarnessCall & { sessionId: string; prompt: string }): string[];
  /** Interactive resume (tmux respawn): the same conversation, optionally with a prompt. */
  resume(o: HarnessCall & { sessionId: string; prompt?: string }): string[];
  /**
   * Headless (process runner): one prompt, answered and exited. `sessionId` continues that
   * conversation; absent, a new one starts (its id is read from the output).
   */
  headless(
    o: HarnessCall & { sessionId?: string; prompt: string; limits?: RunLimits },
  ): string[];
  /** The conversation id a headless run printed (its JSON output), if any. */
  sessionIdFromOutput(stdout: string): string | undefined;
  /**
   * What a headless run reports it used (its JSON output), or `undefined` when the harness
   * reports nothing (then a cost, token or turn budget is "not measured").
   */
  usageFromOutput(stdout: string): HarnessUsage | undefined;
  /** The answer's text in a headless run's output (`critic run`), when it can be found. */
  answerFromOutput?(stdout: string): string | undefined;
  /**
   * The flags of the adapter's own for `settings` in `mode` (approval, model, effort, trust),
   * less any the operator's `extraArgs` already set: what harness trust reads too.
   */
  settingsArgs(o: HarnessCall & { mode: HarnessMode }): string[];
  /**
   * For `output` ids in tmux: the id of the conversation an interactive harness started in
   * `cwd` at or after `since` (epoch ms), found where the harness keeps its sessions on disk;
   * `undefined` while there is none yet. `env` is the harness's environment (its home).
   */
  discoverId?(o: { cwd: string; since: number; env: Record<string, string> }): Promise<
    string | undefined
  >;
}

/** What a runner needs to host one session. */
export interface HostedSession {
  ref: string;
  /** `github-octo-repo-15`: names the tmux session (`loop-<slug>`) and the log file. */
  slug: string;
  harness: HarnessName;
  /** The conversation id (pre-assigned, issued, or learned from the harness's output: `IdSource`). */
  harnessSessionId: string;
  cwd: string;
  /** The tmux target (`loop-<slug>`), `""` for the process runner. */
  tmuxTarget: string;
  /**
   * This session's own variables, added to the harness's environment (`THE_LOOP_SESSION`,
   * `THE_LOOP_WORK_ITEM`, `THE_LOOP_CONTROL`, `PATH` with the-loop first); none: none.
   */
  env?: Record<string, string>;
}

/** A runner's answer to a spawn. */
export interface SpawnResult {
  /** The conversation id, when the runner learned or confirmed it. */
  harnessSessionId: string;
  /** `loop-<slug>` for tmux; `""` for the process runner. */
  tmuxTarget: string;
}

/**
 * What one harness run reports it used; each field absent when the harness does not report it.
 * `costUsd` in US dollars, `tokens` input + output (cache reads and writes included), `turns` the
 * agent's turns in that run.
 */
export interface HarnessUsage {
  costUsd?: number;
  tokens?: number;
  turns?: number;
}

/** Per-run caps a harness enforces itself (from the remaining budget); absent = no cap. */
export interface RunLimits {
  maxTurns?: number;
  maxBudgetUsd?: number;
}

/** What a run is told beyond its prompt: its caps, and where to report what it used. */
export interface RunOptions {
  signal?: AbortSignal;
  /** Caps for a headless run (the process runner passes them to the harness). */
  limits?: RunLimits;
  /** Called once per finished run with what it reported (never for tmux: not measured). */
  onUsage?: (usage: HarnessUsage) => void;
}

/** Hosts harness sessions: `process` (headless subprocesses) or `tmux`. */
export interface HarnessRunner {
  readonly kind: "process" | "tmux";
  /**
   * Starts the harness on a prompt: its first, or the dispatcher's relaunch of a dead one
   * (`resume`: the recorded conversation continued when it can be). The one way a runner
   * launches a harness, and the dispatcher calls it only after `session_spawn`.
   */
  spawn(
    s: HostedSession,
    prompt: string,
    opts: RunOptions & { resume: boolean },
  ): Promise<SpawnResult>;
  /**
   * Gives a live session one more prompt (tmux: pasted into its pane; process: a `--resume`
   * run); `true` when the harness took it, `false` when the harness is not running (nothing
   * delivered, nothing started: relaunching it is the dispatcher's, through `session_spawn`).
   * A failure throws.
   */
  deliver(s: HostedSession, prompt: string, opts: RunOptions): Promise<boolean>;
  /**
   * Ends the harness at closure: tmux kills the harness inside (SIGTERM, then SIGKILL after the
   * grace) and keeps or kills the session per `keepSessionOnClose`; process: nothing runs.
   */
  close(s: HostedSession): Promise<void>;
  /** At shutdown: lets go of what the runner keeps between calls (tmux: its control client). */
  dispose?(): Promise<void>;
}

/** A prepared checkout. */
export interface Checkout {
  cwd: string;
  /** The branch the worktree is on (`the-loop/issue-15`). */
  branch: string;
  /** Whether this call made the worktree (false: it was there already). */
  created: boolean;
}

/** Per-work-item checkouts under `routing.workspace.root`. */
export interface Workspaces {
  /** The work item's worktree, made (from a cached clone, fetched) when missing. */
  prepare(item: WorkItemRef, opts: { signal?: AbortSignal }): Promise<Checkout>;
  /** Removes the worktree at closure; never one with uncommitted changes (`kept` says why). */
  cleanup(item: WorkItemRef): Promise<{ removed: boolean; kept?: string }>;
}

/** Pre-answers a harness's trust dialogs before a spawn (best-effort; never throws). */
export interface HarnessTrust {
  prepare(o: { harness: HarnessName; cwd: string; extraArgs: string[] }): Promise<void>;
}

/** Who asked for a control action, and from where. */
export interface ControlOrigin {
  source: "comment" | "cli";
  actor: string;
  /** The comment's URL, or a note for the CLI. */
  note: string;
}

/** What a control action did. */
export interface ControlResult {
  /** `applied`, `noop` (start on a running session), or `rejected` with a reason. */
  status: "applied" | "noop" | "rejected";
  reason?: string;
  /** The record written (absent when nothing was recorded). */
  recorded?: ControlRecord;
  /** The session after the action, when there is one. */
  session?: SessionRecord;
}

/**
 * The execution-control actions, applied the same way from a comment and from
 * a CLI verb: `start` records the start (the next event or cycle spawns); `pause` marks the live
 * session paused (with no session it is still recorded); `resume` needs a paused session
 * (else rejected `nothing-to-resume`, nothing recorded); `stop` closes the session (ending its
 * harness) and records the stop, which disarms the item.
 */
export interface ControlActions {
  /** `opts.loop`: a start's loop, kept in its control record (the item walks it when spawned). */
  apply(
    command: ControlCommand,
    item: WorkItemRef,
    origin: ControlOrigin,
    opts?: { loop?: string },
  ): Promise<ControlResult>;
}

/** What a session registration (`SessionStore.register`) takes. */
export interface RegisterInput {
  item: WorkItemRef;
  harness: HarnessName;
  harnessSessionId: string;
  cwd: string;
  /** `loop-<slug>` for a tmux-hosted session; `""` (the default) when headless. */
  tmuxTarget?: string;
  /** The work item's browser URL; default `""`. */
  url?: string;
  /** Replace a live session of the same item (else `SessionExistsError`). */
  force?: boolean;
  /** What the spawn's run reported it used (a headless harness). */
  use?: HarnessUsage;
}

/** What a delivery's note carries besides its ids (see `state/usage.ts`). */
export interface TouchOptions {
  /** The authors of the comments and reviews among the ids (the loop guard counts them). */
  by?: string[];
  /** What the run that delivered them reported it used. */
  use?: HarnessUsage;
}

/** What `SessionStore.update` may change. */
export type SessionPatch =
  & Partial<
    Pick<SessionRecord, "status" | "tmuxTarget" | "harnessSessionId" | "cwd" | "ciFailing">
  >
  & {
    /** Count a launch of the session's harness now (a relaunch; `spawnsPerDay`). */
    launch?: true;
    /** Open one more budget window now (a resume of a budget's pause). */
    grant?: true;
    /** The agent's open question; `null` closes the wait. */
    awaitingInput?: SessionRecord["awaitingInput"] | null;
  };

/** The lifecycle engine as the dispatcher calls it (`run` from `lifecycle/mod.ts`). */
export interface DispatchHooks {
  /**
   * Runs `point`'s hooks over `ctx` and returns it, decisions applied. Never throws. `resume`: a
   * parked chain goes on from `hook` (run again when `rerun`).
   */
  run<P extends PointName>(
    point: P,
    ctx: ContextOf<P>,
    opts?: { resume?: { hook: string; rerun: boolean } },
  ): Promise<ContextOf<P>>;
  /**
   * Whether `ctx`'s chain parked (`suspensionOf` from `lifecycle/mod.ts`): an `onError: suspend`
   * hook broke at a proceed point. Absent: never.
   */
  suspensionOf?(ctx: object): Suspension | undefined;
  /** Scrubs the declaration's secret values from a text (a parked context is stored). */
  redact?(text: string): string;
  /** The hook that refused `ctx` (`refuserOf` from `lifecycle/mod.ts`), for the ⚠️ comment. */
  refuserOf?(ctx: object): string | undefined;
  /**
   * Whether any hook handles `point` (`handles` from `lifecycle/mod.ts`); false lets a call site
   * skip reading a fact nobody will see. Absent: assumed true.
   */
  handles?(point: PointName): boolean;
}

/** The GitHub writes the dispatcher makes (a subset of `GitHubClient`). */
export interface DispatchGitHub {
  /** Posts a comment (the client marks it as the-loop's own). */
  createComment(repo: string, number: number, body: string): Promise<{ html_url?: string }>;
  addReaction(target: ReactionTarget, content: ReactionContent): Promise<void>;
  /** Adds labels to an issue or pull request (the loop's `loop:<phase>`); absent: not published. */
  addLabels?(repo: string, number: number, labels: string[]): Promise<unknown>;
  /** Removes one label; false when it was not there. Absent: not published. */
  removeLabel?(repo: string, number: number, label: string): Promise<boolean>;
}

/**
 * What the dispatcher asks of the registry (the `SessionStore` of `./sessions/mod.ts` is one;
 * the dry run's in-memory registry another).
 */
export interface DispatchSessions {
  register(input: RegisterInput): Promise<SessionRecord>;
  /** One read: whether `deliveryId` was taken (or is in flight), and the live session. */
  lookup(
    ref: string,
    deliveryId: string,
  ): Promise<{ duplicate: boolean; inFlight?: boolean; live: SessionRecord | undefined }>;
  live(ref: string): Promise<SessionRecord | undefined>;
  update(ref: string, patch: SessionPatch): Promise<SessionRecord | undefined>;
  /** Notes delivery ids on the live session (at-most-once). */
  touch(
    ref: string,
    deliveryIds: string | string[],
    opts?: TouchOptions,
  ): Promise<SessionRecord | undefined>;
  /** The record of `ref` whatever its status (a closed one: the item's launches of the day). */
  get?(ref: string): Promise<SessionRecord | undefined>;
  close(ref: string, opts?: { reason?: string }): Promise<SessionRecord | undefined>;
  /** Marks delivery ids in flight before their paste (`landed`: delivered, note still behind). */
  fly?(
    ref: string,
    deliveryIds: string[],
    opts?: { landed?: string[] },
  ): Promise<SessionRecord | undefined>;
}

/** The runner, with what announcements may say about it when it knows. */
export interface DispatchRunner extends HarnessRunner {
  /** `tmux attach -t loop-<slug>` (the tmux runner). */
  attachCommand?(slug: string): string;
  /** Where a headless session's output is logged (the process runner). */
  logPath?(slug: string): string;
}

/** What the dispatcher reads and clears of the control records (a `ControlStore`). */
export type DispatchControlStore = Pick<ControlStore, "dir" | "get" | "startRequested" | "clear">;

/** The durable "work_item_start was asked for this arming" markers. */
export interface StartMarks {
  /** Marks `ref` started; true when it was not marked yet (the hook is asked then). */
  mark(ref: string): Promise<boolean>;
  /** Forgets the mark (closure, refusal, stop). */
  clear(ref: string): Promise<void>;
}

/** Options of the `SessionDispatcher` (`dispatcher.ts`): the ports above, and its settings. */
export interface SessionDispatcherOptions {
  /** The routing settings in force, read at every event (a hot reload applies at once). */
  config: () => RoutingConfig;
  sessions: DispatchSessions;
  /** The control actions (`SessionControl`): what a keyword in a comment applies. */
  control: ControlActions;
  /** The control records: whether a start was recorded; cleared at closure and refusal. */
  controlStore: DispatchControlStore;
  runner: DispatchRunner;
  adapterFor: (harness: HarnessName) => HarnessAdapter;
  /** Per-item checkouts (when `workspace.enabled`); absent: sessions run in `spawnWorkdir`. */
  workspaces?: Workspaces;
  /** Pre-answers the harness's trust dialogs (when `harnessTrust.enabled`). */
  trust?: HarnessTrust;
  github: DispatchGitHub;
  hooks: DispatchHooks;
  events: EventSink;
  templates: PromptTemplates | (() => PromptTemplates);
  /** Where sessions run without a workspace (`routing.spawnWorkdir` resolved; `""` there). */
  spawnWorkdir: string;
  /** Default: files beside the control records (`<registryDir>/control/<slug>.started`). */
  startMarks?: StartMarks;
  /** The loops in force (the built-ins and the config's), read at every event; default: none. */
  loops?: () => LoopSet;
  /** Where each work item stands in its loop (`LoopStore` of `loops/mod.ts`); default: none. */
  positions?: LoopPositions;
  /**
   * A session's own environment (its capability, its work item, the control endpoint, `the-loop`
   * on `PATH`), asked at every launch; default: none.
   */
  sessionEnv?: (ref: string) => Record<string, string>;
  /**
   * Where parked operations are kept (`SuspensionStore` of `./suspensions/mod.ts`, under
   * `<state.root>/suspended`); absent: a failing `onError: suspend` hook is only a failure.
   */
  suspensions?: SuspensionStore;
  now?: () => Date;
  uuid?: () => string;
}
