/**
 * Runs a bundled hook in a dedicated, permission-sandboxed Web Worker kept for the
 * executor's life. A timed-out call terminates the worker and starts a fresh one from the
 * same bundle, so later calls work.
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

  constructor(opts: WorkerHookOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.#url = URL.createObjectURL(new Blob([opts.code], { type: "application/javascript" }));
    this.#spawn();
  }

  /** Resolves with the points the hook handles once the worker has loaded it. */
  loaded(): Promise<string[]> {
    return this.#ready.then((h) => (this.#handled = new Set(h), h));
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

  async #timedOut(live: Live, point: string, timeoutMs: number): Promise<HookTimeout> {
    const pong = this.#send(live, { type: "ping" }).then(() => true, () => false);
    const alive = await Promise.race([
      pong,
      new Promise<false>((r) => setTimeout(() => r(false), PING_MS)),
    ]);
    if (this.#live === live) this.#restart();
    const leaked = !alive;
    return new HookTimeout(
      `hook "${this.name}" timed out after ${timeoutMs} ms at ${point}` +
        (leaked ? "; its worker did not stop (a busy loop keeps running and holds a CPU)" : ""),
      { leaked },
    );
  }

  async call(
    point: PointName,
    params: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<CallResult> {
    if (this.#closed) throw new HookFailure(`hook "${this.name}" is closed`);
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
      if (!reply.ok) {
        throw new HookFailure(
          `hook "${this.name}" failed at ${point}: ${describeWorkerError(reply)}`,
        );
      }
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
 * picked from its exports; the worker is then terminated.
 */
export async function startWorkerHook(opts: WorkerHookOptions): Promise<WorkerHook> {
  const hook = new WorkerHook(opts);
  try {
    await hook.loaded();
  } catch (err) {
    await hook.close();
    throw err;
  }
  return hook;
}
