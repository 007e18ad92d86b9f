/**
 * What the two module executors — a hook in a worker (`_worker_executor.ts`) and in a child
 * process (`_process_executor.ts`) — share: the name, points and restart backoff of a
 * supervised hook, the calls in flight and their ids, one deadline over a call's two waits
 * (the hook loaded, then its reply) with the failure each way out of it gives, the load under
 * its budget, and starting a hook that is closed again when it does not load.
 *
 * @module
 */
import { messageOf } from "../../../errors.ts";
import { Deadline, deadline, DeadlineError } from "../../../async/mod.ts";
import {
  type CallOptions,
  type CallResult,
  type Executor,
  type ExecutorStatus,
  HookFailure,
  HookLoadError,
  HookTimeout,
} from "../../executor.ts";
import {
  backingOff,
  closed,
  failedAt,
  type HookAt,
  loadTimedOut,
  moduleTimedOut,
  type Stopped,
  threw,
} from "../../_messages.ts";
import type { PointName } from "../../sdk/points.ts";
import { RestartBackoff, type RestartClock, type RestartPolicy } from "./_restart_backoff.ts";

/** Options both module executors take. */
export interface SupervisedOptions {
  /** The declaration's name. */
  name: string;
  /** The restart backoff's numbers (default `RESTART_POLICY`); tests shrink them. */
  restartPolicy?: Partial<RestartPolicy>;
  /** The restart backoff's clock and randomness; injected by tests. */
  restartClock?: Partial<RestartClock>;
}

/** A hook's reply to a call, as its worker or hook host sends it. */
export interface HookReply {
  ok?: boolean;
  answer?: Record<string, unknown> | null;
  /** Why it failed: the hook's own error, as it threw it. */
  error?: string;
}

/** One call under way in a worker or a process. */
export interface Attempt {
  /** Waits — each wait raced against `d` — for the hook to be loaded, then for its reply. */
  reply(d: Deadline): Promise<HookReply>;
  /** Stops what the call ran, its time being up, and says what became of it. */
  stop(): Promise<Stopped>;
}

/** What a worker or a child reports once its hook has loaded. */
export interface LoadedHook {
  /** The points the hook handles. */
  handles: string[];
  /** The hook's own method names, as its sandbox reported them (not yet checked). */
  methods?: unknown;
}

/** At most this many of a hook's method names are kept, each at most this long. */
const MAX_METHODS = 64;
const MAX_METHOD_NAME = 64;

/**
 * The method names a hook's sandbox reported, as far as they can be trusted to be names:
 * strings of identifier characters, capped in count and length; anything else is dropped.
 */
export function methodNames(reported: unknown): string[] {
  if (!Array.isArray(reported)) return [];
  const ok = (n: unknown): n is string =>
    typeof n === "string" && n.length <= MAX_METHOD_NAME && /^[\w$]+$/.test(n);
  return [...new Set(reported.slice(0, MAX_METHODS).filter(ok))];
}

/** A call in a worker or a process: its hook and point (`at`), its context and budget. */
export interface CallAt {
  at: HookAt & { point: PointName };
  params: Record<string, unknown>;
  opts: CallOptions;
}

/**
 * A module hook the-loop runs in something it starts, stops and restarts (a worker, a child
 * process). A call follows one path for both: it fails at once when the hook is closed (or,
 * as {@linkcode SupervisedHook.attempt} decides, disabled or backing off); otherwise its waits
 * run under one deadline, a timeout stops what ran, and every way out is a hook failure
 * naming the hook and the point.
 */
export abstract class SupervisedHook implements Executor {
  readonly kind = "module" as const;
  readonly name: string;
  /** Whom its messages are about. */
  protected readonly at: HookAt;
  protected readonly backoff: RestartBackoff;
  /** Set once it is closed: every later call fails. */
  protected isClosed = false;
  #handled = new Set<string>();
  #methods: string[] = [];

  constructor(opts: SupervisedOptions) {
    this.name = opts.name;
    this.at = { hook: opts.name, kind: "module" };
    this.backoff = new RestartBackoff(opts.restartPolicy, opts.restartClock);
  }

  /** Does the loaded hook handle `point`? (Nothing before it has loaded.) */
  handles(point: PointName): boolean {
    return this.#handled.has(point);
  }

  /**
   * The hook's own method names (points or not) as its sandbox reported them at its last load:
   * what a "did you mean" about a misspelt point is worked out from. Empty before it loads.
   */
  methods(): string[] {
    return [...this.#methods];
  }

  /** How its worker or process has been faring. */
  status(): ExecutorStatus {
    return this.backoff.status(this.state());
  }

  abstract close(): Promise<void>;

  async call(
    point: PointName,
    params: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<CallResult> {
    if (this.isClosed) throw new HookFailure(closed(this.at));
    const at = { ...this.at, point };
    const attempt = this.attempt({ at, params, opts });
    const d = new Deadline(opts.timeoutMs);
    try {
      const reply = await attempt.reply(d);
      // the hook's own error, as it threw it: the runner says which hook and point it was
      if (!reply.ok) throw new HookFailure(threw(at, reply.error));
      return { answer: reply.answer ?? null };
    } catch (err) {
      if (err instanceof DeadlineError) throw timedOut(at, opts.timeoutMs, await attempt.stop());
      if (err instanceof HookFailure) throw err;
      throw new HookFailure(failedAt(at, messageOf(err)));
    } finally {
      d.clear();
    }
  }

  /**
   * Readies a call: throws when it must fail at once (the hook disabled, or down and its
   * restart backoff not passed), starts a worker or process when none runs.
   */
  protected abstract attempt(call: CallAt): Attempt;

  /** Its worker's or process's state, for {@linkcode SupervisedHook.status}. */
  protected abstract state(): ExecutorStatus["state"];

  /**
   * Throws when the hook is down and a call must fail at once (its backoff has not passed and
   * the call is not the circuit's probe); `what` says which it runs.
   */
  protected admitWhileDown(opts: CallOptions, what: "worker" | "process"): void {
    if (this.backoff.holdsOff(opts.probe)) {
      throw new HookFailure(backingOff(this.at, this.backoff.describe(what)));
    }
  }

  /**
   * Waits for the hook to load (no longer than `ms`, when given) and records what it handles;
   * when its time runs out, `stop` stops what ran and the load fails, saying what became of it.
   */
  protected async loadWithin(
    loaded: Promise<LoadedHook>,
    ms: number | undefined,
    stop: () => Promise<Stopped>,
  ): Promise<string[]> {
    try {
      const { handles, methods } = await deadline(loaded, ms);
      this.#handled = new Set(handles);
      this.#methods = methodNames(methods);
      return handles;
    } catch (err) {
      if (err instanceof DeadlineError) {
        throw new HookLoadError(loadTimedOut(this.at, ms!, await stop()));
      }
      throw err;
    }
  }
}

/** A call's timeout: leaked when what ran could not be stopped. */
function timedOut(at: HookAt, ms: number, stopped: Stopped): HookTimeout {
  const log = moduleTimedOut(at, ms, stopped);
  if (stopped === "answers" || stopped === "killed") return new HookTimeout(log, { leaked: false });
  return new HookTimeout(log, { leaked: true, stuck: stopped });
}

/** Starts a hook: `load` it, and close it again when that fails. */
export async function started<H extends { close(): Promise<void> }>(
  hook: H,
  load: (hook: H) => Promise<unknown>,
): Promise<H> {
  try {
    await load(hook);
  } catch (err) {
    await hook.close();
    throw err;
  }
  return hook;
}

/** The calls waiting for a reply from one worker or child process, by id. */
export class Pending<R> {
  #next = 1;
  readonly #waiting = new Map<number, { resolve: (r: R) => void; reject: (e: Error) => void }>();

  /** Waits for the reply to call `id` (by default a fresh id). */
  open(id: number = this.#next++): { id: number; reply: Promise<R> } {
    const reply = new Promise<R>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    return { id, reply };
  }

  /** Settles call `id` with its reply, or fails it; false when no such call waits. */
  settle(id: number, reply: R | Error): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    this.#waiting.delete(id);
    if (reply instanceof Error) waiting.reject(reply);
    else waiting.resolve(reply);
    return true;
  }

  /** Fails every call still waiting with `err`. */
  failAll(err: Error): void {
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const waiting of all) waiting.reject(err);
  }
}
