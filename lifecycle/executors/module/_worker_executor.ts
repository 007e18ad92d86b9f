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
import {
  type CallOptions,
  type CallResult,
  type Executor,
  type ExecutorStatus,
  HookFailure,
  HookTimeout,
  type Stuck,
} from "../../executor.ts";
import { POINT_NAMES, type PointName } from "../../sdk/points.ts";
import { HookLoadError } from "../../executor.ts";
import { describeWorkerError, type WorkerReply } from "./_worker_messages.ts";
import { openFsGate } from "./_fs_gate.ts";
import { RestartBackoff, type RestartClock, type RestartPolicy } from "./_restart_backoff.ts";
import { classifyStuck } from "./_thread_cpu.ts";

/** How long a timed-out worker has to answer a ping before it counts as leaked. */
const PING_MS = 100;

/** What a worker that did not stop is doing, as a timed-out call's error says it. */
const STUCK_AT_CALL: Record<Stuck, string> = {
  spinning: "its worker busy-loops and holds a CPU core; it cannot be stopped",
  blocked: "its worker is blocked (e.g. Atomics.wait) and did not stop; it holds no CPU, " +
    "but its thread stays until the-loop exits",
  unknown: "its worker did not stop (a busy loop holding a CPU, or a blocking wait such as " +
    "Atomics.wait)",
};

/** The same, for a top level that did not finish loading. */
const STUCK_AT_LOAD: Record<Stuck, string> = {
  spinning: "its worker is busy-looping and cannot be stopped, so its thread is leaked " +
    "(holding a CPU) until the-loop exits",
  blocked: "its worker is blocked (e.g. Atomics.wait) and did not stop, so its thread is " +
    "leaked (holding no CPU) until the-loop exits",
  unknown: "its worker did not stop (a busy loop or a blocking wait), so its thread may be " +
    "leaked until the-loop exits",
};

/** Why a disabled hook's calls fail. */
const STILL: Record<Stuck, string> = {
  spinning: "its worker is still busy-looping",
  blocked: "its worker is still blocked, e.g. in Atomics.wait",
  unknown: "its worker is still busy or blocked",
};

/** Options for {@linkcode startWorkerHook}. */
export interface WorkerHookOptions {
  /** The declaration's name. */
  name: string;
  /** The bundle (from `bundleHook`) the worker runs. */
  code: string;
  /** Exactly what the worker may do (see `workerPermissions`). */
  permissions: Deno.PermissionOptionsObject;
  /** The export to use instead of the default or the one LifecycleHooks subclass. */
  exportName?: string;
  /** The declaration's `with`: the class's constructor argument. */
  options?: Record<string, unknown>;
  /** The config file's directory, handed to the hook (`this.configDir`) to resolve its paths. */
  configDir?: string;
  /** How long the hook's top level may take to load; no limit when absent. */
  loadTimeoutMs?: number;
  /** The restart backoff's numbers (default `RESTART_POLICY`); tests shrink them. */
  restartPolicy?: Partial<RestartPolicy>;
  /** The restart backoff's clock and randomness; injected by tests. */
  restartClock?: Partial<RestartClock>;
}

interface Live {
  worker: Worker;
  pending: Map<number, (reply: WorkerReply | Error) => void>;
  /** Set once it died on its own (its first error event). */
  dead?: boolean;
}

/** A hook running in a worker; build it with {@linkcode startWorkerHook}. */
export class WorkerHook implements Executor {
  readonly kind = "module" as const;
  readonly name: string;
  #opts: WorkerHookOptions;
  #url: string;
  #live!: Live;
  #ready!: Promise<string[]>;
  #handled = new Set<string>();
  #nextId = 1;
  #closed = false;
  /** Set once a timed-out worker could not be stopped: why every later call fails. */
  #disabled?: string;
  #backoff: RestartBackoff;
  /** Set once the hook has loaded: a worker that dies before that is not restarted. */
  #everLoaded = false;
  /** Set while the worker is dead and not yet replaced. */
  #down = false;
  #restartTimer?: ReturnType<typeof setTimeout>;

  constructor(opts: WorkerHookOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.#backoff = new RestartBackoff(opts.restartPolicy, opts.restartClock);
    this.#url = URL.createObjectURL(new Blob([opts.code], { type: "application/javascript" }));
    this.#spawn(false);
  }

  status(): ExecutorStatus {
    return {
      restarts: this.#backoff.restarts,
      crashes: this.#backoff.streak,
      ...(this.#backoff.last !== undefined ? { lastCrash: this.#backoff.last } : {}),
      state: this.#disabled
        ? "disabled"
        : !this.#down
        ? "running"
        : this.#restartTimer !== undefined
        ? "restarting"
        : "waiting",
    };
  }

  /**
   * Resolves with the points the hook handles once the worker has loaded it. With
   * `timeoutMs`, rejects with {@linkcode HookLoadError} when the hook's top level has not
   * finished by then (the caller closes the hook).
   */
  async loaded(timeoutMs?: number): Promise<string[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<"timeout">((r) => {
      if (timeoutMs !== undefined) timer = setTimeout(() => r("timeout"), timeoutMs);
    });
    try {
      const handles = await Promise.race([this.#ready, expired]);
      if (handles === "timeout") {
        const stuck = await this.#stuck(this.#live);
        throw new HookLoadError(
          `its top level did not finish within ${timeoutMs} ms` +
            (stuck === "answers" ? "" : `; ${STUCK_AT_LOAD[stuck]}`),
        );
      }
      this.#handled = new Set(handles);
      return handles;
    } finally {
      clearTimeout(timer);
    }
  }

  handles(point: PointName): boolean {
    return this.#handled.has(point);
  }

  /** Starts a worker; `restart` when it replaces one. */
  #spawn(restart: boolean): void {
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    this.#down = false;
    const fs = openFsGate(this.#opts.permissions); // holds path grants to real paths
    const worker = fs.attach(
      new Worker(this.#url, {
        type: "module",
        name: `hook:${this.name}`,
        deno: { permissions: this.#opts.permissions },
      }),
    );
    this.#backoff.started(restart);
    const live: Live = { worker, pending: new Map() };
    this.#live = live;
    const initId = this.#nextId; // the init message below is the next one sent
    worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      // here, not where the init reply is awaited: a death reported in the same turn runs first
      if (e.data?.id === initId && e.data.ok) this.#everLoaded = true;
      const settle = live.pending.get(e.data?.id);
      if (!settle) return;
      live.pending.delete(e.data.id);
      settle(e.data);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      if (live.dead) return;
      live.dead = true;
      this.#failAll(live, new HookFailure(`hook "${this.name}": its worker died: ${e.message}`));
      if (this.#live === live && !this.#closed && !this.#disabled) this.#died(live, e.message);
    };
    worker.onmessageerror = () => {
      this.#failAll(live, new HookFailure(`hook "${this.name}": its answer could not be read`));
    };
    const { name, exportName, options, configDir } = this.#opts;
    const meta = { name, configDir: configDir ?? "" };
    const init = { type: "init", exportName, options, meta, points: POINT_NAMES, fs: fs.init };
    this.#ready = this.#send(live, init)
      .then((reply) => {
        if (!reply.ok) throw new Error(describeWorkerError(reply));
        return reply.handles ?? [];
      });
    this.#ready.catch(() => {}); // read by loaded() and call(); never unhandled
  }

  #send(live: Live, msg: Record<string, unknown>): Promise<WorkerReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      live.pending.set(id, (r) => r instanceof Error ? reject(r) : resolve(r));
      try {
        live.worker.postMessage({ ...msg, id });
      } catch (err) {
        live.pending.delete(id);
        reject(
          new HookFailure(`hook "${this.name}": cannot send the call: ${(err as Error).message}`),
        );
      }
    });
  }

  #failAll(live: Live, err: Error): void {
    for (const settle of live.pending.values()) settle(err);
    live.pending.clear();
  }

  #restart(): void {
    const old = this.#live;
    this.#failAll(old, new HookFailure(`hook "${this.name}": its worker was restarted`));
    old.worker.terminate();
    if (!this.#closed) this.#spawn(true);
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
    const plan = this.#backoff.died(message.split("\n")[0]);
    if (!plan.eager) return;
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (this.#down && !this.#closed && !this.#disabled) this.#spawn(true);
    }, plan.delayMs);
  }

  /**
   * Does the worker answer a ping within {@linkcode PING_MS}? If not, does its thread burn CPU
   * (`spinning`: a busy loop) or not (`blocked`: e.g. `Atomics.wait`)? See `_thread_cpu.ts`.
   */
  async #stuck(live: Live): Promise<"answers" | Stuck> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pong = this.#send(live, { type: "ping" }).then(() => true, () => false);
    try {
      const answered = await Promise.race([
        pong,
        new Promise<false>((r) => timer = setTimeout(() => r(false), PING_MS)),
      ]);
      if (answered) return "answers";
    } finally {
      clearTimeout(timer);
    }
    return await classifyStuck();
  }

  async #timedOut(live: Live, point: string, timeoutMs: number): Promise<HookTimeout> {
    const stuck = await this.#stuck(live);
    const leaked = stuck !== "answers";
    if (leaked && !this.#disabled) {
      // Replacing it would start another thread for the next call to pin: stop here.
      this.#disabled = `hook "${this.name}" is disabled until the-loop restarts: its last ` +
        `call could not be stopped (${STILL[stuck]})`;
      this.#failAll(live, new HookFailure(this.#disabled));
      live.worker.terminate();
    } else if (this.#live === live && !this.#disabled) {
      this.#restart();
    }
    return new HookTimeout(
      `hook "${this.name}" timed out after ${timeoutMs} ms at ${point}` +
        (leaked
          ? `; ${STUCK_AT_CALL[stuck]}, so the hook is disabled until the-loop restarts`
          : ""),
      leaked ? { leaked, stuck } : { leaked },
    );
  }

  async call(
    point: PointName,
    params: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<CallResult> {
    if (this.#closed) throw new HookFailure(`hook "${this.name}" is closed`);
    if (this.#disabled) throw new HookFailure(this.#disabled);
    if (this.#down) {
      if (this.#backoff.waitMs() > 0 && !opts.probe) {
        throw new HookFailure(`hook "${this.name}": ${this.#backoff.describe("worker")}`);
      }
      this.#spawn(true);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<"timeout">((r) =>
      timer = setTimeout(() => r("timeout"), opts.timeoutMs)
    );
    try {
      const ready = await Promise.race([this.#ready.then(() => "ready" as const), expired]);
      if (ready === "timeout") throw await this.#timedOut(this.#live, point, opts.timeoutMs);
      const live = this.#live;
      const reply = await Promise.race([
        this.#send(live, { type: "call", point, params }),
        expired,
      ]);
      if (reply === "timeout") throw await this.#timedOut(live, point, opts.timeoutMs);
      // the hook's own error, as it threw it: the runner says which hook and point it was
      if (!reply.ok) throw new HookFailure(describeWorkerError(reply));
      return { answer: reply.answer ?? null };
    } catch (err) {
      if (err instanceof HookFailure) throw err;
      throw new HookFailure(`hook "${this.name}" failed at ${point}: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    this.#failAll(this.#live, new HookFailure(`hook "${this.name}" is closed`));
    this.#live.worker.terminate();
    URL.revokeObjectURL(this.#url);
    return Promise.resolve();
  }
}

/**
 * Starts `opts.code` in a worker and waits for it to load the hook. Rejects with the worker's
 * load error (message and location) if the hook's top level throws or no executor can be
 * picked from its exports, or with {@linkcode HookLoadError} if it does not finish within
 * `opts.loadTimeoutMs`; the worker is then terminated.
 */
export async function startWorkerHook(opts: WorkerHookOptions): Promise<WorkerHook> {
  const hook = new WorkerHook(opts);
  try {
    await hook.loaded(opts.loadTimeoutMs);
  } catch (err) {
    await hook.close();
    throw err;
  }
  return hook;
}
