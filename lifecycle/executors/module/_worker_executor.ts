/**
 * Runs a bundled hook in a dedicated, permission-sandboxed Web Worker kept for the
 * executor's life. A timed-out call terminates the worker and starts a fresh one from the
 * same bundle, so later calls work — unless the worker could not be stopped (a busy loop, or
 * a thread blocked in `Atomics.wait`): then the hook is disabled instead, so such a hook leaks
 * one thread, not one per call. A worker that dies on its own (an error that reached the-loop)
 * is started again with a backoff (`_restart_backoff.ts`), never in a tight loop.
 *
 * @module
 */
import { messageOf } from "../../../errors.ts";
import { deadline, later } from "../../../async/mod.ts";
import { HookFailure, type HookLog, type Stuck } from "../../executor.ts";
import {
  answerUnreadable,
  cannotSend,
  closed,
  disabled,
  workerDied,
  workerRestarted,
} from "../../_messages.ts";
import { POINT_NAMES } from "../../sdk/points.ts";
import { describeWorkerError, type WorkerReply } from "./_worker_messages.ts";
import { openFsGate } from "./_fs_gate.ts";
import {
  type Attempt,
  type CallAt,
  type LoadedHook,
  Pending,
  started,
  SupervisedHook,
  type SupervisedOptions,
} from "./_supervisor.ts";
import { classifyStuck } from "./_thread_cpu.ts";
import { type NativeHook, NativeLoadFailed } from "./_native.ts";

/** How long a timed-out worker has to answer a ping before it counts as leaked. */
const PING_MS = 100;

/** Options for {@linkcode startWorkerHook}. */
export interface WorkerHookOptions extends SupervisedOptions {
  /** The bundle (from `bundleHook`) the worker runs, or a native hook's entry (`nativeHook`). */
  code: string;
  /**
   * Set when `code` is a native hook's entry: its modules' names (stack traces are rewritten
   * with them) and URLs (revoked at close). Its first load then fails with `NativeLoadFailed`
   * when the hook's modules did not link, so the caller can bundle it instead.
   */
  native?: Pick<NativeHook, "names" | "urls">;
  /** Exactly what the worker may do (see `workerPermissions`). */
  permissions: Deno.PermissionOptionsObject;
  /** The export to use instead of the default or the one LifecycleHooks subclass. */
  exportName?: string;
  /** The declaration's `with`: the class's constructor argument. */
  options?: Record<string, unknown>;
  /** The config file's directory, handed to the hook (`this.configDir`) to resolve its paths. */
  baseDir?: string;
  /** How long the hook's top level may take to load; no limit when absent. */
  loadTimeoutMs?: number;
}

interface Live {
  worker: Worker;
  calls: Pending<WorkerReply>;
  /** Set once it died on its own (its first error event). */
  dead?: boolean;
  /** Set once a native hook's modules linked (its code is about to run). */
  linked?: boolean;
}

/** A hook running in a worker; build it with {@linkcode startWorkerHook}. */
export class WorkerHook extends SupervisedHook {
  #opts: WorkerHookOptions;
  #url: string;
  #live!: Live;
  #ready!: Promise<LoadedHook>;
  /** Set once a timed-out worker could not be stopped: why every later call fails. */
  #disabled?: HookLog;
  /** Set once the hook has loaded: a worker that dies before that is not restarted. */
  #everLoaded = false;
  /** Set while the worker is dead and not yet replaced. */
  #down = false;
  /** The cancel of the restart planned after a death, while one is. */
  #cancelRestart?: () => void;

  constructor(opts: WorkerHookOptions) {
    super(opts);
    this.#opts = opts;
    this.#url = URL.createObjectURL(new Blob([opts.code], { type: "application/javascript" }));
    this.#spawn(false);
  }

  protected state(): "disabled" | "running" | "restarting" | "waiting" {
    if (this.#disabled) return "disabled";
    if (!this.#down) return "running";
    return this.#cancelRestart !== undefined ? "restarting" : "waiting";
  }

  /**
   * Resolves with the points the hook handles once the worker has loaded it. With
   * `timeoutMs`, rejects with `HookLoadError` when the hook's top level has not finished by
   * then (the caller closes the hook).
   */
  loaded(timeoutMs?: number): Promise<string[]> {
    return this.loadWithin(this.#ready, timeoutMs, () => this.#stuck(this.#live));
  }

  /** Starts a worker; `restart` when it replaces one. */
  #spawn(restart: boolean): void {
    this.#cancelRestart?.();
    this.#cancelRestart = undefined;
    this.#down = false;
    const fs = openFsGate(this.#opts.permissions); // holds path grants to real paths
    const worker = fs.attach(
      new Worker(this.#url, {
        type: "module",
        name: `hook:${this.name}`,
        deno: { permissions: this.#opts.permissions },
      }),
    );
    this.backoff.started(restart);
    const live: Live = { worker, calls: new Pending() };
    this.#live = live;
    let initId = 0;
    worker.onmessage = (e: MessageEvent<WorkerReply & { linked?: unknown }>) => {
      if (e.data?.linked === true && e.data.id === undefined) {
        live.linked = true;
        return;
      }
      // here, not where the init reply is awaited: a death reported in the same turn runs first
      if (e.data?.id === initId && e.data.ok) this.#everLoaded = true;
      live.calls.settle(e.data?.id, this.#renamed(e.data));
    };
    worker.onerror = (e) => {
      e.preventDefault();
      if (live.dead) return;
      live.dead = true;
      const message = this.#rename(e.message);
      live.calls.failAll(new HookFailure(workerDied(this.at, message)));
      if (this.#live === live && !this.isClosed && !this.#disabled) this.#died(live, message);
    };
    worker.onmessageerror = () => {
      live.calls.failAll(new HookFailure(answerUnreadable(this.at)));
    };
    const { name, exportName, options, baseDir } = this.#opts;
    const meta = { name, configDir: baseDir ?? "" };
    const init = this.#send(live, {
      type: "init",
      exportName,
      options,
      meta,
      points: POINT_NAMES,
      fs: fs.init,
      names: this.#opts.native?.names,
    });
    initId = init.id;
    // a native hook's first load that fails before its modules linked: bundle it instead
    const retry = (message: string, runtime: boolean) =>
      this.#opts.native && !this.#everLoaded && !live.linked && !this.isClosed
        ? new NativeLoadFailed(message, { runtime })
        : undefined;
    this.#ready = init.reply.then((reply) => {
      if (!reply.ok) {
        const message = describeWorkerError(reply);
        throw retry(message, false) ?? new Error(message);
      }
      return { handles: reply.handles ?? [], methods: reply.methods };
    }, (err) => {
      throw retry(messageOf(err), true) ?? err;
    });
    this.#ready.catch(() => {}); // read by loaded() and call(); never unhandled
  }

  /** `text` with a native hook's blob URLs written as the files they stand for. */
  #rename(text: string): string {
    for (const [url, name] of this.#opts.native?.names ?? []) text = text.replaceAll(url, name);
    return text;
  }

  #renamed(reply: WorkerReply): WorkerReply {
    if (!this.#opts.native || reply?.ok !== false) return reply;
    const rename = (v: unknown) => typeof v === "string" ? this.#rename(v) : undefined;
    return { ...reply, error: rename(reply.error), stack: rename(reply.stack) };
  }

  #send(live: Live, msg: Record<string, unknown>): { id: number; reply: Promise<WorkerReply> } {
    const call = live.calls.open();
    try {
      live.worker.postMessage({ ...msg, id: call.id });
    } catch (err) {
      live.calls.settle(call.id, new HookFailure(cannotSend(this.at, messageOf(err))));
    }
    return call;
  }

  #restart(): void {
    const old = this.#live;
    old.calls.failAll(new HookFailure(workerRestarted(this.at)));
    old.worker.terminate();
    if (!this.isClosed) this.#spawn(true);
  }

  /**
   * The worker died on its own (an error that reached the-loop): replace it after the
   * backoff's delay — on its own for the first few deaths in a row, else at the first call
   * after the delay. A worker that never loaded is not replaced (its load fails instead).
   */
  #died(live: Live, message: string): void {
    live.worker.terminate();
    if (!this.#everLoaded) return;
    this.#down = true;
    const plan = this.backoff.died(message.split("\n")[0]);
    if (!plan.eager) return;
    this.#cancelRestart = later(() => {
      this.#cancelRestart = undefined;
      if (this.#down && !this.isClosed && !this.#disabled) this.#spawn(true);
    }, plan.delayMs);
  }

  /**
   * Does the worker answer a ping within {@linkcode PING_MS}? If not, does its thread burn CPU
   * (`spinning`: a busy loop) or not (`blocked`: e.g. `Atomics.wait`)? See `_thread_cpu.ts`.
   */
  async #stuck(live: Live): Promise<"answers" | Stuck> {
    const pong = this.#send(live, { type: "ping" }).reply.then(() => true, () => false);
    if (await deadline(pong, PING_MS).catch(() => false)) return "answers";
    return await classifyStuck();
  }

  /**
   * Stops a call whose time is up: a worker that answers a ping is replaced; one that does not
   * (its thread spins or is blocked) disables the hook instead — replacing it would start
   * another thread for the next call to pin.
   */
  async #stopAfterTimeout(live: Live): Promise<"answers" | Stuck> {
    const stuck = await this.#stuck(live);
    if (stuck !== "answers" && !this.#disabled) {
      this.#disabled = disabled(this.at, stuck);
      live.calls.failAll(new HookFailure(this.#disabled));
      live.worker.terminate();
    } else if (this.#live === live && !this.#disabled) {
      this.#restart();
    }
    return stuck;
  }

  protected attempt({ at, params, opts }: CallAt): Attempt {
    if (this.#disabled) throw new HookFailure(this.#disabled);
    if (this.#down) {
      this.admitWhileDown(opts, "worker");
      this.#spawn(true);
    }
    let live: Live | undefined;
    return {
      reply: async (d) => {
        await d.race(this.#ready);
        live = this.#live;
        const reply = await d.race(
          this.#send(live, { type: "call", point: at.point, params }).reply,
        );
        return reply.ok ? reply : { ok: false, error: describeWorkerError(reply) };
      },
      stop: () => this.#stopAfterTimeout(live ?? this.#live),
    };
  }

  close(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    this.isClosed = true;
    this.#cancelRestart?.();
    this.#cancelRestart = undefined;
    this.#live.calls.failAll(new HookFailure(closed(this.at)));
    this.#live.worker.terminate();
    URL.revokeObjectURL(this.#url);
    for (const url of this.#opts.native?.urls ?? []) URL.revokeObjectURL(url);
    return Promise.resolve();
  }
}

/**
 * Starts `opts.code` in a worker and waits for it to load the hook. Rejects with the worker's
 * load error (message and location) if the hook's top level throws or no executor can be
 * picked from its exports, or with `HookLoadError` if it does not finish within
 * `opts.loadTimeoutMs`; the worker is then terminated.
 */
export function startWorkerHook(opts: WorkerHookOptions): Promise<WorkerHook> {
  return started(new WorkerHook(opts), (hook) => hook.loaded(opts.loadTimeoutMs));
}
