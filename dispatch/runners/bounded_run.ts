/**
 * One program run to its end under a time bound, as the process runner runs a headless harness
 * (`_logged_run.ts`) but without a session or a log file: an argv (never a shell), stdin closed,
 * the whole environment given (nothing inherited), in its own process group; at the bound the
 * tree is ended (SIGTERM to the group, the pid and every descendant, SIGKILL after the grace,
 * `_kill_tree.ts`). It never throws for the program's sake: a program that is not installed, a
 * non-zero exit and a timeout are all answers. Used by `the-loop critic run`.
 *
 * ```ts
 * const r = await boundedRun({ program: "claude", args, cwd, env, timeoutMs: 600_000 });
 * r.outcome; // "exited" | "timeout" | "not-found" | "unstartable"
 * ```
 *
 * @module
 */
import { later, settlesWithin } from "../../async/mod.ts";
import { notStartedWhy, spawnGroupChild } from "./_group_child.ts";
import { terminateTree } from "./_kill_tree.ts";

/** What {@linkcode boundedRun} runs. */
export interface BoundedRunOptions {
  program: string;
  /** The arguments after the program, each one argv element. */
  args: string[];
  cwd: string;
  /** The whole environment (the caller's is not inherited). */
  env: Record<string, string>;
  timeoutMs: number;
  /** How long the tree gets after SIGTERM before SIGKILL (default 2000 ms). */
  graceMs?: number;
  /** Most bytes of stdout and of stderr kept, each (default 4 MiB; the rest is dropped). */
  maxBytes?: number;
}

/** How a bounded run ended. */
export interface BoundedRunResult {
  /**
   * `exited` (by itself, any code or signal), `timeout` (ended at the bound), `not-found` (no
   * such program on PATH), `unstartable` (another reason it could not start: see `error`).
   */
  outcome: "exited" | "timeout" | "not-found" | "unstartable";
  /** The exit code (null when it did not start, or a signal ended it). */
  code: number | null;
  /** The signal that ended it, if one did. */
  signal: string | null;
  /** The pid it ran as (null when it did not start). */
  pid: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Why it could not start (`unstartable`, `not-found`). */
  error?: string;
}

const DEFAULT_MAX = 4 * 1024 * 1024;

async function collect(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const kept: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    if (bytes >= max) continue;
    const part = chunk.subarray(0, max - bytes);
    kept.push(part);
    bytes += part.length;
  }
  const all = new Uint8Array(bytes);
  let off = 0;
  for (const c of kept) all.set(c, off), off += c.length;
  return new TextDecoder().decode(all);
}

/** Runs the program to its end or its bound; see the module doc. */
export async function boundedRun(o: BoundedRunOptions): Promise<BoundedRunResult> {
  const started = Date.now();
  let child: Deno.ChildProcess;
  try {
    child = spawnGroupChild(o);
  } catch (err) {
    return {
      outcome: err instanceof Deno.errors.NotFound ? "not-found" : "unstartable",
      code: null,
      signal: null,
      pid: null,
      stdout: "",
      stderr: "",
      durationMs: Date.now() - started,
      error: notStartedWhy(o.program, err),
    };
  }
  const max = o.maxBytes ?? DEFAULT_MAX;
  let exited = false;
  const status = child.status.finally(() => exited = true);
  let stopping: Promise<unknown> | undefined;
  const cancel = later(() => {
    stopping ??= terminateTree(child.pid, {
      graceMs: o.graceMs ?? 2000,
      gone: () => exited,
      group: true,
    });
  }, o.timeoutMs);
  const out = collect(child.stdout, max).catch(() => "");
  const err = collect(child.stderr, max).catch(() => "");
  let result: Deno.CommandStatus;
  try {
    result = await status;
    if (stopping) await stopping;
  } finally {
    cancel();
  }
  // an escaped grandchild may hold the pipes open: do not wait on it for ever
  const both = Promise.all([out, err]);
  const streams = await settlesWithin(both, 2000) ? await both : ["", ""];
  return {
    outcome: stopping ? "timeout" : "exited",
    code: result.signal ? null : result.code,
    signal: result.signal ?? null,
    pid: child.pid,
    stdout: streams[0],
    stderr: streams[1],
    durationMs: Date.now() - started,
  };
}
