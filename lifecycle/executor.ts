/**
 * The seam between the runner and the three kinds of hook: a local module (in a sandboxed
 * worker or a child process), a remote JSON-RPC endpoint, or an external command. The runner
 * knows only this interface; each executor enforces its own timeout, because only it knows how
 * to stop what it started (terminate a worker, kill a process group, abort a request).
 *
 * @module
 */
import type { PointName } from "./points.ts";

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
}

/** A hook call failed: it threw, answered garbage, or could not be reached. */
export class HookFailure extends Error {
  override name = "HookFailure";
}

/** A hook call ran out of time. `leaked` is set when the executor could not stop the hook. */
export class HookTimeout extends HookFailure {
  override name = "HookTimeout";
  /** Set when the timed-out code may still be running (a busy worker thread Deno cannot stop). */
  readonly leaked: boolean;
  constructor(message: string, opts: { leaked?: boolean } = {}) {
    super(message);
    this.leaked = opts.leaked ?? false;
  }
}
