/**
 * The seam between the runner and the three kinds of hook: a local module (in a sandboxed
 * worker or a child process), a remote JSON-RPC endpoint, or an external command. The runner
 * knows only this interface; each executor enforces its own timeout, because only it knows how
 * to stop what it started (terminate a worker, kill a process group, abort a request).
 *
 * @module
 */
import type { PointName } from "./sdk/points.ts";

/** What the executor kinds are called in declarations, events and reports. */
export type ExecutorKind = "module" | "remote" | "command";

/** The answer of one hook call. */
export interface CallResult {
  /**
   * The hook's answer before it is applied: `null` to pass, or an object of decisions (for a
   * module this may be the whole context it was given, facts included; the runner checks).
   */
  answer: Record<string, unknown> | null;
  /** A command hook that exited 2: it refuses the operation; `reason` is its stderr. */
  refused?: { reason: string };
  /** Extra telemetry for `hooks.ran` (command hooks: exit code and capped output). */
  telemetry?: {
    exit_code?: number;
    stdout?: string;
    stderr?: string;
    stdout_truncated?: boolean;
    stderr_truncated?: boolean;
  };
}

/** Options for one call. */
export interface CallOptions {
  /** The hook's time budget; the executor fails the call with {@linkcode HookTimeout} after it. */
  timeoutMs: number;
  /**
   * This call is the runner's circuit-breaker probe (its circuit is half-open): an executor
   * waiting out a restart backoff starts its worker or process for it now instead of failing
   * the call at once. The circuit's cool-down has paced it already.
   */
  probe?: boolean;
}

/** How a worker or process executor has been faring, for `hooks validate` and diagnostics. */
export interface ExecutorStatus {
  /** Workers or processes started to replace one that died or was stopped. */
  restarts: number;
  /** Deaths in a row (a worker or process that ran a minute resets it); 0 when none. */
  crashes: number;
  /** What the last death was, when there was one. */
  lastCrash?: string;
  /**
   * `running`; `restarting` (a restart is scheduled after its backoff); `waiting` (down, the
   * next call after the backoff starts it); `disabled` (until the-loop restarts).
   */
  state: "running" | "restarting" | "waiting" | "disabled";
}

/** One loaded hook, ready to be called. */
export interface Executor {
  /** The declaration's `name`. */
  readonly name: string;
  readonly kind: ExecutorKind;
  /** Does this hook want to be called at `point`? */
  handles(point: PointName): boolean;
  /** Calls the hook at `point` with the context's JSON form. Rejects on failure. */
  call(point: PointName, params: Record<string, unknown>, opts: CallOptions): Promise<CallResult>;
  /** Releases what the executor holds (workers, child processes). Idempotent. */
  close(): Promise<void>;
  /** Restarts and crashes of what it runs (executors that run a worker or a process). */
  status?(): ExecutorStatus;
}

/** A hook call failed: it threw, answered garbage, or could not be reached. */
export class HookFailure extends Error {
  override name = "HookFailure";
}

/**
 * Why a leaked worker did not stop: `spinning` (it burned CPU through the ping window: a busy
 * loop holding a core), `blocked` (it used none: it waits, e.g. in `Atomics.wait` or a
 * synchronous read, holding a thread and its memory but no CPU), `unknown` (the thread's CPU
 * time could not be read: not Linux, or no `/proc`).
 */
export type Stuck = "spinning" | "blocked" | "unknown";

/** A hook call ran out of time. `leaked` is set when the executor could not stop the hook. */
export class HookTimeout extends HookFailure {
  override name = "HookTimeout";
  /** Set when the timed-out code may still be running (a worker thread Deno cannot stop). */
  readonly leaked: boolean;
  /** Only when leaked: whether the thread spins or is blocked. */
  readonly stuck?: Stuck;
  constructor(message: string, opts: { leaked?: boolean; stuck?: Stuck } = {}) {
    super(message);
    this.leaked = opts.leaked ?? false;
    if (this.leaked) this.stuck = opts.stuck ?? "unknown";
  }
}

/**
 * A module hook could not be loaded: its file (or one it imports) is missing or invalid, an
 * import is refused, its top level threw, or no executor could be picked from its exports.
 * The message names the hook and, where known, `file:line:col`.
 */
export class HookLoadError extends Error {
  override name = "HookLoadError";
}

/**
 * How long a hook's top level may take to load when a module hook's `loadTimeoutMs`
 * is not given: generous for a cold worker or child process on a busy machine, short enough
 * that a hook stuck at load fails `hooks test`, `hooks validate` and the daemon's start.
 */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;
