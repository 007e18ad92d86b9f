/**
 * What a daemon (`startPoller`, `startReceiver`) opens first, below any routing: its event log
 * ({@linkcode openDaemonLog}), a watch on GitHub's long rate-limit waits ({@linkcode watchedSink}),
 * and its pidfile's lock — or a refusal naming the instance that holds it
 * ({@linkcode lockOrRefuse}).
 *
 * @module
 */
import type { CliConfig } from "../config/mod.ts";
import { EventLog, type EventSink } from "../events/mod.ts";
import { DaemonLock, LockHeldError } from "./lock.ts";
import { longRateWait } from "./trouble.ts";

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

/** How long a daemon's event log trusts its open file (see {@linkcode openDaemonLog}). */
const DAEMON_LOG_RECHECK_MS = 20;

/**
 * What a daemon writes its events to: the event log, its open file trusted for
 * {@linkcode DAEMON_LOG_RECHECK_MS} ms between checks that the path still names it, so a burst of
 * writes costs no `stat` each. A rotation is followed that much later (the records in between
 * land at the end of the rotated file).
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
