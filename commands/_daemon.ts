/**
 * What `poll` and `gh-webhook` share as commands: path flags, the `status` table's first rows and
 * trouble rows, and `stop` — signal the daemon holding the lock (SIGTERM) and wait until it has
 * let go. A stale pidfile is removed and nobody is signalled; no
 * pidfile, a stale one, or a daemon outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, join } from "node:path";
import type { CliConfig } from "../config/mod.ts";
import type { LastError, LockHolder, RateLimitWait } from "../daemon/mod.ts";
import { UsageError } from "../errors.ts";
import { loadCliConfig } from "./_config.ts";
import { type CliContext, println } from "./context.ts";

/** A path flag made absolute against `cwd`, else `fallback` (the config's). */
export function pathFlag(flag: string | undefined, fallback: string, cwd: string): string {
  if (!flag) return fallback;
  return isAbsolute(flag) ? flag : join(cwd, flag);
}

interface StopFlags {
  pidfile?: string;
  timeout: string;
}

/** What differs between the two daemons' `stop`. */
export interface DaemonStopOptions {
  /** How messages name the daemon: `the poller`, `gh-webhook`. */
  what: string;
  /** The prefix of the printed line: `poll`, `the-loop`. */
  prefix: string;
  /** The config key the pidfile defaults to, for `--help`. */
  pidfileKey: string;
  /** The pidfile from the config. */
  pidfileOf(config: CliConfig): string;
}

/** Adds `stop` to a daemon's command group. */
export function registerStop(group: Command, ctx: CliContext, o: DaemonStopOptions): void {
  group.command("stop")
    .description(
      `stop the running ${o.what.replace(/^the /, "")} (SIGTERM, then wait for it to exit)`,
    )
    .option("--pidfile <path>", `its pidfile (default: ${o.pidfileKey})`)
    .option("--timeout <seconds>", "how long to wait for it to exit", "30")
    .action(async (flags: StopFlags) => {
      const seconds = Number(flags.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        throw new UsageError(`--timeout: must be a number of seconds > 0 (got "${flags.timeout}")`);
      }
      // the config is read only when --pidfile does not say where
      const pidfile = flags.pidfile
        ? pathFlag(flags.pidfile, "", ctx.cwd)
        : o.pidfileOf((await loadCliConfig(ctx)).config);
      const { describeStop, stopDaemon } = await import("../daemon/mod.ts");
      const result = await stopDaemon(pidfile, { timeoutMs: seconds * 1000 });
      const message = describeStop(o.what, pidfile, result);
      if (result.outcome !== "stopped") throw new Error(message);
      println(ctx, `${o.prefix}: ${message}`);
    });
}

/** What both daemons' status files say of their trouble. */
export interface TroubleStatus {
  lastError?: LastError | null;
  rateLimit?: RateLimitWait | null;
  degraded?: string[];
}

/** The first rows of a daemon's `status` table: whether it runs (the lock's holder), and its pidfile. */
export function lockRows(holder: LockHolder, pidfile: string): string[][] {
  return [
    ["running", holder.live ? `yes (pid ${holder.pid ?? "unknown"})` : "no"],
    [
      "pidfile",
      pidfile + (holder.exists && !holder.live ? " (stale: left by a dead process)" : ""),
    ],
  ];
}

/** The `status` table's rows of a daemon's trouble: last error, rate-limit wait, degraded. */
export function troubleRows(s: TroubleStatus, now: number = Date.now()): string[][] {
  const rows: string[][] = [];
  const e = s.lastError;
  rows.push(["last error", e ? `${e.at} ${e.kind}: ${e.message}` : "none"]);
  const r = s.rateLimit;
  if (r) {
    const waiting = Date.parse(r.until) > now;
    rows.push([
      "rate limit",
      `${waiting ? "waiting" : "waited"} until ${r.until} (${r.reason}, from ${r.at})`,
    ]);
  }
  const reasons = s.degraded ?? [];
  rows.push(["degraded", reasons.length === 0 ? "no" : reasons.join("; ")]);
  return rows;
}
