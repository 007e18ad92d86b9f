/**
 * `poll stop` and `gh-webhook stop`: signal the process holding the pidfile's lock and wait for
 * the lock to go. A stale pidfile (nobody holds the lock) is removed and nobody is signalled: its
 * pid may belong to an unrelated process by now.
 *
 * @module
 */
import { delay } from "../async/mod.ts";
import { lockHolder } from "./lock.ts";

/** What {@linkcode stopDaemon} did. */
export type StopResult =
  | { outcome: "stopped"; pid: number }
  | { outcome: "not-running" }
  | { outcome: "stale"; pid: number | null }
  | { outcome: "timeout"; pid: number };

/** Options of {@linkcode stopDaemon}. */
export interface StopOptions {
  /** How long to wait for the lock to be released after the signal. */
  timeoutMs: number;
  /** How often to look (default 50 ms). */
  pollMs?: number;
  /** The signal sent (default SIGTERM). */
  signal?: Deno.Signal;
}

/** Signals the daemon holding `pidfile` and waits until it has let go of the lock. */
export async function stopDaemon(pidfile: string, opts: StopOptions): Promise<StopResult> {
  const holder = await lockHolder(pidfile);
  if (!holder.exists) return { outcome: "not-running" };
  if (!holder.live || holder.pid === null) {
    if (!holder.live) await Deno.remove(pidfile).catch(() => {});
    return { outcome: "stale", pid: holder.pid };
  }
  const pid = holder.pid;
  try {
    Deno.kill(pid, opts.signal ?? "SIGTERM");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const deadline = Date.now() + opts.timeoutMs;
  const pollMs = opts.pollMs ?? 50;
  while (Date.now() < deadline) {
    if (!(await lockHolder(pidfile)).live) return { outcome: "stopped", pid };
    await delay(pollMs);
  }
  return (await lockHolder(pidfile)).live
    ? { outcome: "timeout", pid }
    : { outcome: "stopped", pid };
}

/** The message a `stop` command prints (and throws for outcomes other than `stopped`). */
export function describeStop(what: string, pidfile: string, result: StopResult): string {
  switch (result.outcome) {
    case "stopped":
      return `${what} stopped (pid ${result.pid})`;
    case "not-running":
      return `${what} is not running (no pidfile at ${pidfile})`;
    case "stale":
      return `${what} is not running: ${pidfile} was left by a process that is gone ` +
        `(pid ${result.pid ?? "unknown"}); removed it, signalled nobody`;
    case "timeout":
      return `${what} (pid ${result.pid}) did not stop in time; it still holds ${pidfile}. ` +
        `Wait longer (--timeout) or kill it`;
  }
}
