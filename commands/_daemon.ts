/**
 * What `poll` and `gh-webhook` share as commands: taking the pidfile's lock at start (a second
 * instance exits 1 naming the holder), and `stop` — signal the daemon holding the lock (SIGTERM)
 * and wait until it has let go. A stale pidfile is removed and nobody is signalled; no
 * pidfile, a stale one, or a daemon outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, join } from "node:path";
import type { CliConfig } from "../config/mod.ts";
import type { DaemonLock, LockHolder } from "../daemon/mod.ts";
import { messageOf, UsageError } from "../errors.ts";
import { EventLog, type EventSink } from "../events/mod.ts";
import {
  failureKindOf,
  failureLine,
  type LastError,
  longRateWait,
  type RateLimitWait,
  type Trouble,
} from "../daemon/mod.ts";
import type { GitHubClient } from "../github/mod.ts";
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

/** How a refused start names the daemon: `a poller` / `poller.blocked`, `gh-webhook` / … */
export interface LockOptions {
  /** The subject of the message: `a poller`, `gh-webhook`. */
  what: string;
  /** The command that stops the running one: `the-loop poll stop`. */
  stop: string;
  /** Told the holder's pid when another instance holds the lock (emits the `*.blocked` event). */
  blocked(holderPid: number | null): void;
}

/** Takes `pidfile`'s lock, or throws naming the instance that holds it. */
export async function lockOrRefuse(pidfile: string, o: LockOptions): Promise<DaemonLock> {
  const { DaemonLock, LockHeldError } = await import("../daemon/mod.ts");
  try {
    return await DaemonLock.acquire(pidfile);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    o.blocked(error.pid);
    throw new Error(
      `${o.what} is already running (${error.pid === null ? "pid unknown" : `pid ${error.pid}`} ` +
        `holds ${pidfile}); stop it with '${o.stop}', or give this one another --pidfile`,
    );
  }
}

/**
 * What a daemon (`poll start`, `gh-webhook start`) writes its events to: the event log, its open
 * file trusted for {@linkcode DAEMON_LOG_RECHECK_MS} ms between checks that the path still names
 * it, so a burst of writes costs no `stat` each. A rotation is followed that much later (the
 * records in between land at the end of the rotated file).
 */
export function openDaemonLog(
  config: CliConfig,
  source: string,
  opts: { onWriteError?: (message: string | undefined) => void } = {},
): EventLog {
  return new EventLog({
    path: config.eventLog.path,
    source,
    enabled: config.eventLog.enabled,
    recheckMs: DAEMON_LOG_RECHECK_MS,
    onWriteError: opts.onWriteError,
  });
}

/**
 * The daemon's events, watched: everything goes on to `events`, and a `github.rate_limited`
 * wait longer than 10 s is told to `onLongWait` (said on stderr, kept in the status file).
 */
export function watchedSink(
  events: EventSink,
  onLongWait: (w: NonNullable<ReturnType<typeof longRateWait>>) => void,
): EventSink {
  return {
    emit(event, fields, opts) {
      events.emit(event, fields, opts);
      if (event !== "github.rate_limited") return;
      const long = longRateWait(fields);
      if (long) onLongWait(long);
    },
  };
}

/** How long a daemon's event log trusts its open file (see {@linkcode openDaemonLog}). */
const DAEMON_LOG_RECHECK_MS = 20;

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

/**
 * The start's check of the token (one cheap authenticated request): a token GitHub refuses stops
 * the start with the remedy; anything else (GitHub unreachable, a 5xx) is said, and the cycles
 * try again. A 404 is GitHub Enterprise with rate limiting off: nothing to check against.
 */
export async function checkToken(gh: GitHubClient, trouble: Trouble): Promise<void> {
  try {
    await gh.checkToken();
  } catch (error) {
    const kind = failureKindOf(error);
    if (kind === "not-found") return;
    if (kind === "auth") throw new Error(`cannot start: ${failureLine(kind, messageOf(error))}`);
    trouble.error(error);
  }
}
