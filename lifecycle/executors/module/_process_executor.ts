/**
 * Runs a bundled hook in a child the-loop process (`__hook-host` mode) with a heap cap and a
 * minimal environment. A timed-out call SIGKILLs the child; a child that dies (out of memory,
 * killed) is replaced by a fresh one at the next call — after a backoff when it keeps dying
 * (`_restart_backoff.ts`; a call before then fails at once). The daemon and its other hooks are
 * unaffected. Each child gets a random nonce in its first stdin line; a stdout line without it
 * is not a reply, whatever it looks like.
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
} from "../../executor.ts";
import type { PointName } from "../../sdk/points.ts";
import { HookLoadError } from "../../executor.ts";
import { hookHostCommand, hookHostEnv } from "./host_command.ts";
import { MEMORY_EXIT_CODE } from "./hook_host.ts";
import type { WorkerHookOptions } from "./_worker_executor.ts";
import { RestartBackoff } from "./_restart_backoff.ts";

/** Options for {@linkcode startProcessHook}. */
export interface ProcessHookOptions extends WorkerHookOptions {
  /** The child's heap cap, MiB. */
  maxMemoryMb: number;
}

interface Reply {
  hh: 1;
  nonce: string;
  type: "loaded" | "load_failed" | "result";
  id?: number;
  ok?: boolean;
  handles?: string[];
  answer?: Record<string, unknown> | null;
  error?: string;
}

interface Child {
  proc: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  pending: Map<number, (r: Reply | Error) => void>;
  loaded: Promise<string[]>;
  /** Tags this child's replies (sent on its stdin, never in its environment or argv). */
  nonce: string;
  /** The stdout reader; settles when stdout closes. */
  reading?: Promise<void>;
  /** Why it ended, once it has. */
  ended?: string;
  /** Set when the-loop killed it (a timeout, a load timeout, close): not a death of its own. */
  stopped?: boolean;
}

const encoder = new TextEncoder();

/** A hook in a child process; build it with {@linkcode startProcessHook}. */
export class ProcessHook implements Executor {
  readonly kind = "module" as const;
  readonly name: string;
  #opts: ProcessHookOptions;
  #child?: Child;
  #handled = new Set<string>();
  #nextId = 1;
  #closed = false;
  #backoff: RestartBackoff;

  constructor(opts: ProcessHookOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.#backoff = new RestartBackoff(opts.restartPolicy, opts.restartClock);
  }

  status(): ExecutorStatus {
    const down = this.#child?.ended !== undefined;
    return {
      restarts: this.#backoff.restarts,
      crashes: this.#backoff.streak,
      ...(this.#backoff.last !== undefined ? { lastCrash: this.#backoff.last } : {}),
      state: down && this.#child?.stopped !== true ? "waiting" : "running",
    };
  }

  /** The child's pid, while one runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#child?.ended ? undefined : this.#child?.proc.pid;
  }

  /**
   * Starts a child (unless one runs) and resolves with the points the hook handles. With
   * `timeoutMs`, a child whose hook has not loaded by then is killed and this rejects with
   * {@linkcode HookLoadError}.
   */
  async start(timeoutMs?: number): Promise<string[]> {
    const child = this.#child && !this.#child.ended ? this.#child : this.#spawn();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<"timeout">((r) => {
      if (timeoutMs !== undefined) timer = setTimeout(() => r("timeout"), timeoutMs);
    });
    try {
      const handles = await Promise.race([child.loaded, expired]);
      if (handles === "timeout") {
        await this.#stop(child);
        throw new HookLoadError(
          `its top level did not finish within ${timeoutMs} ms; its process was killed`,
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

  #spawn(): Child {
    this.#backoff.started(this.#child !== undefined);
    const cmd = hookHostCommand({ maxMemoryMb: this.#opts.maxMemoryMb });
    const env = hookHostEnv({ grant: this.#opts.permissions.env });
    const proc = new Deno.Command(cmd.command, {
      args: cmd.args,
      clearEnv: env !== undefined,
      env: { ...env, ...cmd.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    let onLoad!: (r: Reply | Error) => void;
    const loaded = new Promise<string[]>((resolve, reject) => {
      onLoad = (r) => {
        if (r instanceof Error) reject(r);
        else if (r.type === "loaded") resolve(r.handles ?? []);
        else reject(new Error(r.error ?? "the hook host could not load the hook"));
      };
    });
    loaded.catch(() => {});
    const child: Child = {
      proc,
      writer: proc.stdin.getWriter(),
      pending: new Map([[0, onLoad]]),
      loaded,
      nonce: crypto.randomUUID(),
    };
    this.#child = child;
    child.reading = this.#read(child);
    proc.status.then((s) => {
      child.ended = s.code === MEMORY_EXIT_CODE
        ? `passed its memory cap (${this.#opts.maxMemoryMb} MiB)`
        : s.signal === "SIGKILL"
        ? "was killed"
        : `exited (${s.signal ? `signal ${s.signal}` : `code ${s.code}`}; ` +
          `out of memory? its heap cap is ${this.#opts.maxMemoryMb} MiB)`;
      void child.writer.close().catch(() => {});
      if (!child.stopped && !this.#closed) this.#backoff.died(`its process ${child.ended}`);
      const err = new HookFailure(`hook "${this.name}": its process ${child.ended}`);
      for (const settle of child.pending.values()) settle(err);
      child.pending.clear();
    });
    const { name, code, permissions, exportName, options, configDir, maxMemoryMb } = this.#opts;
    this.#write(child, {
      type: "load",
      nonce: child.nonce,
      name,
      code,
      permissions,
      exportName,
      options,
      configDir,
      maxMemoryMb,
    });
    return child;
  }

  async #read(child: Child): Promise<void> {
    let buf = "";
    try {
      for await (const chunk of child.proc.stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          let reply: Reply | undefined;
          try {
            reply = JSON.parse(line);
          } catch { /* not the protocol */ }
          if (reply?.hh !== 1 || reply.nonce !== child.nonce) {
            if (line.trim()) console.error(`hook "${this.name}": ${line}`);
            continue;
          }
          const id = reply.type === "result" ? reply.id ?? -1 : 0;
          const settle = child.pending.get(id);
          child.pending.delete(id);
          settle?.(reply);
        }
      }
    } catch { /* the child went away; status handles it */ }
  }

  #write(child: Child, msg: Record<string, unknown>): void {
    child.writer.write(encoder.encode(JSON.stringify(msg) + "\n")).catch(() => {});
  }

  /** SIGKILLs `child` and waits until it is gone and its pipes are closed. */
  async #stop(child: Child): Promise<void> {
    child.stopped = true;
    try {
      child.proc.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.proc.status;
    await child.writer.close().catch(() => {});
    await child.reading;
  }

  async call(
    point: PointName,
    params: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<CallResult> {
    if (this.#closed) throw new HookFailure(`hook "${this.name}" is closed`);
    const died = this.#child?.ended !== undefined && !this.#child.stopped;
    if (died && this.#backoff.waitMs() > 0 && !opts.probe) {
      throw new HookFailure(`hook "${this.name}": ${this.#backoff.describe("process")}`);
    }
    const child = this.#child && !this.#child.ended ? this.#child : this.#spawn();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<"timeout">((r) =>
      timer = setTimeout(() => r("timeout"), opts.timeoutMs)
    );
    try {
      const loaded = await Promise.race([child.loaded, expired]);
      if (loaded === "timeout") throw "timeout";
      const id = this.#nextId++;
      const answer = new Promise<Reply | Error>((r) => child.pending.set(id, r));
      this.#write(child, { type: "call", id, point, params });
      const reply = await Promise.race([answer, expired]);
      if (reply === "timeout") throw "timeout";
      if (reply instanceof Error) throw reply;
      if (!reply.ok) throw new HookFailure(reply.error ?? `hook "${this.name}" failed at ${point}`);
      return { answer: reply.answer ?? null };
    } catch (err) {
      if (err === "timeout") {
        await this.#stop(child);
        throw new HookTimeout(
          `hook "${this.name}" timed out after ${opts.timeoutMs} ms at ${point}; its process was killed`,
        );
      }
      if (err instanceof HookFailure) throw err;
      throw new HookFailure(`hook "${this.name}" failed at ${point}: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#child) await this.#stop(this.#child);
  }
}

/**
 * Starts the hook's child process and waits (at most `opts.loadTimeoutMs`, when given) for it
 * to load the hook.
 */
export async function startProcessHook(opts: ProcessHookOptions): Promise<ProcessHook> {
  const hook = new ProcessHook(opts);
  try {
    await hook.start(opts.loadTimeoutMs);
  } catch (err) {
    await hook.close();
    throw err;
  }
  return hook;
}
