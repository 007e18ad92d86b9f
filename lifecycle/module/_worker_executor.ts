/**
 * Runs a bundled hook in a dedicated, permission-sandboxed Web Worker kept for the
 * executor's life. A timed-out call terminates the worker and starts a fresh one from the
 * same bundle, so later calls work — unless the worker could not be stopped (a busy loop):
 * then the hook is disabled instead, so a spinning hook leaks one thread, not one per call.
 *
 * @module
 */
import {
  type CallOptions,
  type CallResult,
  type Executor,
  HookFailure,
  HookTimeout,
} from "../executor.ts";
import { POINT_NAMES, type PointName } from "../points.ts";
import { HookLoadError } from "./_errors.ts";
import { describeWorkerError, type WorkerReply } from "./_worker_messages.ts";

/** How long a timed-out worker has to answer a ping before it counts as leaked. */
const PING_MS = 100;

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
}

interface Live {
  worker: Worker;
  pending: Map<number, (reply: WorkerReply | Error) => void>;
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

  constructor(opts: WorkerHookOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.#url = URL.createObjectURL(new Blob([opts.code], { type: "application/javascript" }));
    this.#spawn();
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
        const stuck = !(await this.#answersPing(this.#live));
        throw new HookLoadError(
          `its top level did not finish within ${timeoutMs} ms` +
            (stuck
              ? "; its worker is busy-looping and cannot be stopped, so its thread may be " +
                "leaked (holding a CPU) until the-loop exits"
              : ""),
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

  #spawn(): void {
    const worker = new Worker(this.#url, {
      type: "module",
      name: `hook:${this.name}`,
      deno: { permissions: this.#opts.permissions },
    });
    const live: Live = { worker, pending: new Map() };
    this.#live = live;
    worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      const settle = live.pending.get(e.data?.id);
      if (!settle) return;
      live.pending.delete(e.data.id);
      settle(e.data);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      this.#failAll(live, new HookFailure(`hook "${this.name}": its worker died: ${e.message}`));
      if (this.#live === live && !this.#closed) this.#restart();
    };
    worker.onmessageerror = () => {
      this.#failAll(live, new HookFailure(`hook "${this.name}": its answer could not be read`));
    };
    const { name, exportName, options, configDir } = this.#opts;
    const meta = { name, configDir: configDir ?? "" };
    this.#ready = this.#send(live, { type: "init", exportName, options, meta, points: POINT_NAMES })
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
    if (!this.#closed) this.#spawn();
  }

  /** Does the worker answer a ping within {@linkcode PING_MS}? (A busy loop never does.) */
  async #answersPing(live: Live): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pong = this.#send(live, { type: "ping" }).then(() => true, () => false);
    try {
      return await Promise.race([
        pong,
        new Promise<false>((r) => timer = setTimeout(() => r(false), PING_MS)),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #timedOut(live: Live, point: string, timeoutMs: number): Promise<HookTimeout> {
    const leaked = !(await this.#answersPing(live));
    if (leaked && !this.#disabled) {
      // Replacing it would start another thread for the next call to pin: stop here.
      this.#disabled = `hook "${this.name}" is disabled until the-loop restarts: its last ` +
        "call could not be stopped (its worker is still busy-looping)";
      this.#failAll(live, new HookFailure(this.#disabled));
      live.worker.terminate();
    } else if (this.#live === live && !this.#disabled) {
      this.#restart();
    }
    return new HookTimeout(
      `hook "${this.name}" timed out after ${timeoutMs} ms at ${point}` +
        (leaked
          ? "; its worker did not stop (a busy loop keeps running and holds a CPU), so the " +
            "hook is disabled until the-loop restarts"
          : ""),
      { leaked },
    );
  }

  async call(
    point: PointName,
    params: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<CallResult> {
    if (this.#closed) throw new HookFailure(`hook "${this.name}" is closed`);
    if (this.#disabled) throw new HookFailure(this.#disabled);
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
