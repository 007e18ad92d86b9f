/**
 * The seam between the runner and the three kinds of hook: a local module (in a sandboxed
 * worker or a child process), a remote JSON-RPC endpoint, or an external command. The runner
 * knows only this interface; each executor enforces its own timeout (with `async/`'s deadline),
 * because only it knows how to stop what it started (terminate a worker, kill a process group,
 * abort a request). Every failure is a {@linkcode HookError} carrying the fields its message is
 * written from (`_messages.ts`).
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
  /**
   * The hook's own method names, points or not, as its sandbox reported them at load (module
   * hooks): what a "did you mean" about a misspelt point is worked out from.
   */
  methods?(): string[];
}

/**
 * What kind of failure a {@linkcode HookError} is, for code that decides by it (the message
 * says it to a person; `lifecycle/_messages.ts` writes every message from these fields):
 *
 * - `timeout`: a call ran out of its time budget ({@linkcode HookTimeout});
 * - `load-timeout`: a module's top level did not finish loading in time;
 * - `load-failed`: a module could not be loaded (missing file, syntax error, its top level
 *   threw, no executor among its exports, a permission that does not exist);
 * - `refused-import`: a module imports what would leave its sandbox;
 * - `threw`: the hook's own code failed (a module threw; a remote answered a JSON-RPC error);
 * - `bad-answer`: the answer is not what the contract takes (not JSON-RPC, not a JSON object,
 *   a worker reply that cannot be read, a refusal where no `proceed` decision exists);
 * - `over-cap`: an answer or a response body over its byte cap;
 * - `crashed`: its worker or process died; `restarted`: it was replaced while this call
 *   waited; `backoff`: it keeps dying and is not started again yet; `disabled`: a call that
 *   could not be stopped disabled it until the-loop restarts; `closed`: it was closed;
 * - `transport`: it could not be reached (a network error, a message that could not be sent);
 * - `http-status`: a remote answered a non-2xx status (or a redirect);
 * - `exit-status`: a command exited non-zero or was killed by a signal;
 * - `spawn-failed`: a command could not be started; `not-runnable`: its program is missing or
 *   not executable;
 * - `config`: the declaration or the environment cannot work (an invalid url or header, an
 *   empty command, an unset `tokenEnv`, `on` naming points the hook does not handle);
 * - `failed`: anything else (a failure made from a bare message).
 */
export type HookErrorCode =
  | "timeout"
  | "load-timeout"
  | "load-failed"
  | "refused-import"
  | "threw"
  | "bad-answer"
  | "over-cap"
  | "crashed"
  | "restarted"
  | "backoff"
  | "disabled"
  | "closed"
  | "transport"
  | "http-status"
  | "exit-status"
  | "spawn-failed"
  | "not-runnable"
  | "config"
  | "failed";

/** The telemetry a command hook's failure carries (exit code, capped output). */
export type Telemetry = NonNullable<CallResult["telemetry"]>;

/**
 * The fields of a hook failure, as `lifecycle/_messages.ts` builds them (like rollup's logs:
 * a code, whom it is about, and the message written from them).
 */
export interface HookLog {
  /** What kind of failure it is. */
  code: HookErrorCode;
  /** The message, written from the fields. */
  message: string;
  /** The hook's declared name, when known. */
  hook?: string;
  /** Where the hook was being called, when it was. */
  point?: PointName;
  kind?: ExecutorKind;
  /** A command hook's exit code and capped output. */
  telemetry?: Telemetry;
}

/** Options of a {@linkcode HookError} made from a bare message (tests, fakes). */
export type HookErrorOptions = Partial<Omit<HookLog, "message">>;

/**
 * A hook failed, to load or to answer. Carries the fields it was written from: `hook`,
 * `point`, `kind`, `code` (see {@linkcode HookErrorCode}) and, for a command, `telemetry`.
 */
export class HookError extends Error {
  override name = "HookError";
  readonly code: HookErrorCode;
  readonly hook?: string;
  readonly point?: PointName;
  readonly kind?: ExecutorKind;
  readonly telemetry?: Telemetry;
  constructor(log: string | HookLog, opts: HookErrorOptions = {}, code: HookErrorCode = "failed") {
    const fields = typeof log === "string" ? { ...opts, message: log } : { ...log, ...opts };
    super(fields.message);
    this.code = fields.code ?? code;
    if (fields.hook !== undefined) this.hook = fields.hook;
    if (fields.point !== undefined) this.point = fields.point;
    if (fields.kind !== undefined) this.kind = fields.kind;
    if (fields.telemetry !== undefined) this.telemetry = fields.telemetry;
  }
}

/** A hook call failed: it threw, answered garbage, or could not be reached. */
export class HookFailure extends HookError {
  override name = "HookFailure";
  constructor(log: string | HookLog, opts: HookErrorOptions = {}) {
    super(log, opts, "failed");
  }
}

/**
 * Why a leaked worker did not stop: `spinning` (it burned CPU through the ping window: a busy
 * loop holding a core), `blocked` (it used none: it waits, e.g. in `Atomics.wait` or a
 * synchronous read, holding a thread and its memory but no CPU), `unknown` (the thread's CPU
 * time could not be read: not Linux, or no `/proc`).
 */
export type Stuck = "spinning" | "blocked" | "unknown";

/** Options of a {@linkcode HookTimeout}. */
export interface HookTimeoutOptions extends HookErrorOptions {
  /** The timed-out code may still be running (a worker thread Deno cannot stop). */
  leaked?: boolean;
  /** Only when leaked: whether the thread spins or is blocked. */
  stuck?: Stuck;
}

/** A hook call ran out of time. `leaked` is set when the executor could not stop the hook. */
export class HookTimeout extends HookFailure {
  override name = "HookTimeout";
  /** Set when the timed-out code may still be running (a worker thread Deno cannot stop). */
  readonly leaked: boolean;
  /** Only when leaked: whether the thread spins or is blocked. */
  readonly stuck?: Stuck;
  constructor(log: string | HookLog, opts: HookTimeoutOptions = {}) {
    const { leaked, stuck, ...fields } = opts;
    super(log, { code: "timeout", ...fields });
    this.leaked = leaked ?? false;
    if (this.leaked) this.stuck = stuck ?? "unknown";
  }
}

/**
 * A module hook could not be loaded: its file (or one it imports) is missing or invalid, an
 * import is refused, its top level threw, or no executor could be picked from its exports.
 * The message names the hook and, where known, `file:line:col`.
 */
export class HookLoadError extends HookError {
  override name = "HookLoadError";
  constructor(log: string | HookLog, opts: HookErrorOptions = {}) {
    super(log, opts, "load-failed");
  }
}

/**
 * How long a hook's top level may take to load when a module hook's `loadTimeoutMs`
 * is not given: generous for a cold worker or child process on a busy machine, short enough
 * that a hook stuck at load fails `hooks test`, `hooks validate` and the daemon's start.
 */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;
