/**
 * Runs one headless harness process for the process runner: in the session's directory, stdin
 * closed, in its own process group, stdout and stderr appended to the session's log file under a
 * header line, bounded by a timeout (SIGTERM to the tree, SIGKILL after the grace). The header
 * names the argv with the prompt replaced by `<prompt: N chars>`: prompts are long and carry
 * untrusted text (issue and comment bodies), so the log records that a prompt was given, not what.
 * Once the process has exited — whatever way, a failure and a kill included — `ended` is handed
 * the stdout kept (a harness stopped by its own cap prints its result and exits non-zero).
 *
 * @module
 */
import { later, settlesWithin } from "../../async/mod.ts";
import { notStartedWhy, spawnGroupChild } from "./_group_child.ts";
import { terminateTree } from "./_kill_tree.ts";

/** One run. */
export interface LoggedRun {
  program: string;
  /** The arguments after the program. */
  args: string[];
  /** The same arguments with the prompt masked, for the log header. */
  shownArgs: string[];
  cwd: string;
  /** The harness's whole environment (the daemon's is not inherited). */
  env: Record<string, string>;
  logFile: string;
  timeoutMs: number;
  graceMs: number;
  signal?: AbortSignal;
  /** Registers a kill switch (close() ends a session's runs); returns its unregistration. */
  track(stop: () => Promise<void>): () => void;
  /** Names the run in messages: `claude for github:o/r#1`. */
  label: string;
  /**
   * Called once when the process has exited, however it ended (not when it could not start),
   * with the stdout kept, before the run resolves or throws; what it throws is the run's error.
   */
  ended?(stdout: string): void;
}

/** Most stdout kept in memory (the JSON result comes last; earlier output only goes to the log). */
const MAX_KEPT = 4 * 1024 * 1024;

/** Runs it; resolves with stdout on exit 0, else throws a message naming the cause and the log. */
export async function loggedRun(r: LoggedRun): Promise<string> {
  const log = await Deno.open(r.logFile, { append: true, create: true });
  const enc = new TextEncoder();
  let writing = Promise.resolve();
  const write = (bytes: Uint8Array) =>
    writing = writing.then(async () => {
      for (let off = 0; off < bytes.length;) off += await log.write(bytes.subarray(off));
    }).catch(() => {});
  const started = Date.now();
  write(
    enc.encode(
      `--- ${new Date(started).toISOString()} ${[r.program, ...r.shownArgs].join(" ")} ` +
        `(cwd ${r.cwd})\n`,
    ),
  );
  try {
    let child: Deno.ChildProcess;
    try {
      child = spawnGroupChild(r);
    } catch (err) {
      const why = notStartedWhy(r.program, err);
      write(enc.encode(`--- could not start: ${why}\n`));
      throw new Error(`${r.label}: could not start ${r.program}: ${why}`);
    }
    let exited = false;
    const status = child.status.finally(() => exited = true);
    let stopped: "timeout" | "abort" | "close" | undefined;
    let stopping: Promise<unknown> | undefined;
    const stop = (why: "timeout" | "abort" | "close") => {
      stopped ??= why;
      return stopping ??= terminateTree(child.pid, {
        graceMs: r.graceMs,
        gone: () => exited,
        group: true,
      });
    };
    const cancelTimeout = later(() => stop("timeout"), r.timeoutMs);
    const onAbort = () => stop("abort");
    r.signal?.addEventListener("abort", onAbort, { once: true });
    if (r.signal?.aborted) onAbort();
    const untrack = r.track(() => stop("close").then(() => {}));
    let kept: Uint8Array[] = [];
    let keptBytes = 0;
    const pump = async (stream: ReadableStream<Uint8Array>, keep: boolean) => {
      for await (const chunk of stream) {
        write(chunk);
        if (!keep) continue;
        kept.push(chunk);
        keptBytes += chunk.length;
        while (keptBytes > MAX_KEPT && kept.length > 1) keptBytes -= kept.shift()!.length;
      }
    };
    const pumps = Promise.all([pump(child.stdout, true), pump(child.stderr, false)]).catch(
      () => {},
    );
    let result: Deno.CommandStatus;
    try {
      result = await status;
      if (stopping) await stopping;
      // an escaped grandchild may hold the pipes open: do not wait on it for ever
      await settlesWithin(pumps, 2000);
    } finally {
      cancelTimeout();
      r.signal?.removeEventListener("abort", onAbort);
      untrack();
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    const how = result.signal ? `signal ${result.signal}` : `exit ${result.code}`;
    write(enc.encode(`\n--- ${how} after ${secs}s${stopped ? ` (${stopped})` : ""}\n`));
    const out = new Uint8Array(keptBytes);
    let off = 0;
    for (const c of kept) out.set(c, off), off += c.length;
    kept = [];
    const stdout = new TextDecoder().decode(out);
    r.ended?.(stdout);
    if (stopped === "timeout") {
      throw new Error(
        `${r.label} ran longer than ${
          r.timeoutMs / 1000
        }s and was killed; its output: ${r.logFile}`,
      );
    }
    if (stopped === "abort") throw r.signal?.reason ?? new DOMException("aborted", "AbortError");
    if (stopped === "close") throw new Error(`${r.label} was stopped: its session was closed`);
    if (result.code !== 0) {
      throw new Error(`${r.label} failed with exit code ${result.code} (${how}); see ${r.logFile}`);
    }
    return stdout;
  } finally {
    await writing;
    log.close();
  }
}
