/**
 * Runs a bundled hook in a child the-loop process (`__hook-host` mode) with a memory budget and a
 * minimal environment. A timed-out call SIGKILLs the child; a child that dies (out of memory,
 * killed) is replaced by a fresh one at the next call — after a backoff when it keeps dying
 * (`_restart_backoff.ts`; a call before then fails at once). The daemon and its other hooks are
 * unaffected. Each child gets a random nonce in its first stdin line; a stdout line without it
 * is not a reply, whatever it looks like.
 *
 * @module
 */
import { HookFailure } from "../../executor.ts";
import { HOST_LOAD_FAILED, processEnded, processEnding, strayOutput } from "../../_messages.ts";
import { hookHostCommand, hookHostEnv } from "./host_command.ts";
import { MEMORY_EXIT_CODE } from "./hook_host.ts";
import { hostLines, streamReader } from "./_host_lines.ts";
import type { WorkerHookOptions } from "./_worker_executor.ts";
import {
  type Attempt,
  type CallAt,
  type LoadedHook,
  Pending,
  started,
  SupervisedHook,
} from "./_supervisor.ts";

/** Options for {@linkcode startProcessHook}. */
export interface ProcessHookOptions extends WorkerHookOptions {
  /** The hook's memory budget, MiB (`host_command.ts` adds its runtime's room). */
  maxMemoryMb: number;
}

interface Reply {
  hh: 1;
  nonce: string;
  type: "loaded" | "load_failed" | "result";
  id?: number;
  ok?: boolean;
  handles?: string[];
  methods?: unknown;
  answer?: Record<string, unknown> | null;
  error?: string;
}

/** The id the load's reply settles (calls are numbered from 1). */
const LOAD_ID = 0;

interface Child {
  proc: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  calls: Pending<Reply>;
  loaded: Promise<LoadedHook>;
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
export class ProcessHook extends SupervisedHook {
  #opts: ProcessHookOptions;
  #child?: Child;

  constructor(opts: ProcessHookOptions) {
    super(opts);
    this.#opts = opts;
  }

  protected state(): "waiting" | "running" {
    const down = this.#child?.ended !== undefined;
    return down && this.#child?.stopped !== true ? "waiting" : "running";
  }

  /** The child's pid, while one runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#child?.ended ? undefined : this.#child?.proc.pid;
  }

  /**
   * Starts a child (unless one runs) and resolves with the points the hook handles. With
   * `timeoutMs`, a child whose hook has not loaded by then is killed and this rejects with
   * `HookLoadError`.
   */
  start(timeoutMs?: number): Promise<string[]> {
    const child = this.#running() ?? this.#spawn();
    return this.loadWithin(child.loaded, timeoutMs, async () => {
      await this.#stop(child);
      return "killed";
    });
  }

  #running(): Child | undefined {
    return this.#child && !this.#child.ended ? this.#child : undefined;
  }

  #spawn(): Child {
    this.backoff.started(this.#child !== undefined);
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
    const calls = new Pending<Reply>();
    const loaded = calls.open(LOAD_ID).reply.then((r) => {
      if (r.type === "loaded") return { handles: r.handles ?? [], methods: r.methods };
      throw new Error(r.error ?? HOST_LOAD_FAILED);
    });
    loaded.catch(() => {});
    const child: Child = {
      proc,
      writer: proc.stdin.getWriter(),
      calls,
      loaded,
      nonce: crypto.randomUUID(),
    };
    this.#child = child;
    child.reading = this.#read(child);
    proc.status.then((s) => {
      const { maxMemoryMb } = this.#opts;
      child.ended = processEnding(s, { maxMemoryMb, memoryExitCode: MEMORY_EXIT_CODE });
      void child.writer.close().catch(() => {});
      if (!child.stopped && !this.isClosed) this.backoff.died(`its process ${child.ended}`);
      child.calls.failAll(new HookFailure(processEnded(this.at, child.ended)));
    });
    const { name, code, permissions, exportName, options, baseDir, maxMemoryMb } = this.#opts;
    this.#write(child, {
      type: "load",
      nonce: child.nonce,
      name,
      code,
      permissions,
      exportName,
      options,
      baseDir,
      maxMemoryMb,
    });
    return child;
  }

  async #read(child: Child): Promise<void> {
    try {
      for await (const line of hostLines(streamReader(child.proc.stdout))) {
        let reply: Reply | undefined;
        try {
          reply = JSON.parse(line);
        } catch { /* not the protocol */ }
        if (reply?.hh !== 1 || reply.nonce !== child.nonce) {
          if (line.trim()) console.error(strayOutput(this.name, line));
          continue;
        }
        child.calls.settle(reply.type === "result" ? reply.id ?? -1 : LOAD_ID, reply);
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

  protected attempt({ at, params, opts }: CallAt): Attempt {
    if (this.#child?.ended !== undefined && !this.#child.stopped) {
      this.admitWhileDown(opts, "process");
    }
    const child = this.#running() ?? this.#spawn();
    return {
      reply: async (d) => {
        await d.race(child.loaded);
        const { id, reply } = child.calls.open();
        this.#write(child, { type: "call", id, point: at.point, params });
        return await d.race(reply);
      },
      stop: async () => {
        await this.#stop(child);
        return "killed";
      },
    };
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.#child) await this.#stop(this.#child);
  }
}

/**
 * Starts the hook's child process and waits (at most `opts.loadTimeoutMs`, when given) for it
 * to load the hook.
 */
export function startProcessHook(opts: ProcessHookOptions): Promise<ProcessHook> {
  return started(new ProcessHook(opts), (hook) => hook.start(opts.loadTimeoutMs));
}
