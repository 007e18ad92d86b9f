/**
 * The poller as a daemon, startable in-process: {@linkcode startPoller} takes the pidfile's lock
 * (a second poller is refused, naming the first), opens the event log and the ingress stack (the
 * token checked), says it is `ready`, then runs cycles (`runLoop`) until `once` or a stop — the
 * config hot-reloaded before each cycle (`ingress/reload.ts`), each cycle's failures said once per
 * kind (`daemon/trouble.ts`) and kept in `poll-status.json`. `the-loop poll start` parses its flags
 * into {@linkcode PollerDaemonOptions}, prints, and maps SIGINT/SIGTERM to `stop()`.
 *
 * | stop                         | what happens                                                      |
 * | ---------------------------- | ----------------------------------------------------------------- |
 * | `stop()` / the `signal`      | no new item starts; the one in flight finishes; a GitHub wait (a  |
 * |                              | rate limit) is cut short after {@linkcode GITHUB_GRACE_MS}        |
 * | `once`                       | after one cycle                                                   |
 * | an error after the lock      | `poll.stopped` (`reason: error`), the lock let go, `stopped` rejects |
 *
 * ```ts
 * const poller = startPoller({ loaded, env, cwd, warn: console.error, once: true });
 * const { intervalSeconds, sources } = await poller.ready;
 * const { cycles, failed } = await poller.stopped;
 * ```
 *
 * @module
 */
import { later } from "../async/mod.ts";
import type { EnvReader, LoadedConfig } from "../config/mod.ts";
import {
  lockOrRefuse,
  openDaemonLog,
  runDaemon,
  type Running,
  Trouble,
  watchedSink,
} from "../daemon/mod.ts";
import { parseControl } from "../dispatch/mod.ts";
import { messageOf } from "../errors.ts";
import type { EventLog, EventSink } from "../events/mod.ts";
import { resolveTokenFromConfig } from "../github/mod.ts";
import { type LiveIngress, openLiveIngress } from "../ingress/mod.ts";
import { ControlDirView } from "./control_view.ts";
import { Ledger } from "./ledger.ts";
import { runLoop } from "./loop.ts";
import { type CycleFailure, Poller } from "./poller.ts";
import { pollingProblems, settingsFromConfig } from "./settings.ts";
import { type PollStatus, StatusKeeper, statusPath } from "./status.ts";
import { Notifier } from "../notify/mod.ts";

/** How long a stopping daemon waits for the notifications still queued. */
const NOTIFY_DRAIN_MS = 5_000;

/** How long a stopping poller lets the item in flight wait on GitHub. */
export const GITHUB_GRACE_MS = 10_000;

/** Options of {@linkcode startPoller}. */
export interface PollerDaemonOptions {
  /** The config as loaded; its file is watched for edits (hot reload). */
  loaded: LoadedConfig;
  env: EnvReader;
  /** The working directory (sessions run there when `spawnWorkdir` is empty). */
  cwd: string;
  /**
   * Told each line meant for stderr, without its newline: `poll: warning: …` (and, with `once`,
   * `poll: error: …`).
   */
  warn(line: string): void;
  /** The GitHub token; absent: resolved from the config (`github.tokenEnv`, …). */
  token?: string;
  /** The ledger; default `polling.stateFile`. */
  stateFile?: string;
  /** The pidfile to lock; default `polling.pidfile`. */
  pidfile?: string;
  /** Seconds between cycles, winning over the config's (and a reload's); `--interval`. */
  intervalSeconds?: number;
  /** One cycle, then stop (`--once`). */
  once?: boolean;
  /** Where the events go; default the config's event log (`eventLog`). */
  events?: EventSink;
  /** Aborting it is `stop()` (SIGINT/SIGTERM, for the command). */
  signal?: AbortSignal;
  /** Milliseconds since the epoch (the status file's `startedAt`, the trouble's pacing); default `Date.now`. */
  now?: () => number;
  /** How long a stop lets a GitHub wait go on; default {@linkcode GITHUB_GRACE_MS}. */
  githubGraceMs?: number;
}

/** What a started poller says (the command prints its ready line from it). */
export interface PollerReady {
  pid: number;
  intervalSeconds: number;
  /** How many sources it polls. */
  sources: number;
  stateFile: string;
  pidfile: string;
  /** `poll-status.json`. */
  statusFile: string;
}

/** Why a poller stopped (after `poll.stopped`, with the lock let go). */
export interface PollerStopped {
  reason: "once" | "signal";
  cycles: number;
  /** The last cycle's failures by kind (`once`: a non-empty list is a failed run). */
  failed: CycleFailure[];
}

/** Starts the poller in this process: see the module doc. */
export function startPoller(o: PollerDaemonOptions): Running<PollerReady, PollerStopped> {
  return runDaemon((d) => run(o, d.ready, d.stopping), { signal: o.signal });
}

async function run(
  o: PollerDaemonOptions,
  ready: (r: PollerReady) => void,
  stopping: AbortSignal,
): Promise<PollerStopped> {
  const { config } = o.loaded;
  const now = o.now ?? Date.now;
  const stateFile = o.stateFile ?? config.polling.stateFile;
  const pidfile = o.pidfile ?? config.polling.pidfile;
  const token = o.token ?? (await resolveTokenFromConfig(config, o.env)).token;
  const once = o.once ?? false;
  const status = new StatusKeeper(config.state.root, {
    startedAt: new Date(now()).toISOString(),
    intervalSeconds: o.intervalSeconds ?? config.polling.intervalSeconds,
  });
  const statusFile = statusPath(config.state.root);
  let held = false; // the status file is written only while the lock is held
  // a cycle's failures: said once per kind per 10 minutes (once: each kind once, as errors)
  const trouble = new Trouble({
    prefix: once ? "poll: error" : "poll: warning",
    warn: o.warn,
    now,
    onChange: () => {
      if (held) void persist();
    },
  });
  /** Notes whether a state file could be written (`error` undefined: it was); degraded while not. */
  function stateWritten(key: string, file: string, error: unknown): void {
    trouble.degrade(
      key,
      "state-write",
      error === undefined ? undefined : `${file}: ${messageOf(error)}`,
    );
  }
  /** Merges `patch` into the status file; a write that fails degrades the poller. */
  function save(patch: Partial<PollStatus>): Promise<void> {
    return status.update(patch).then(
      () => stateWritten("status", statusFile, undefined),
      (e) => stateWritten("status", statusFile, e),
    );
  }
  /** Writes the trouble (last error, why degraded) into the status file. */
  function persist(): Promise<void> {
    return save({ lastError: trouble.lastError ?? null, degraded: trouble.reasons });
  }
  const log: EventLog | undefined = o.events ? undefined : openDaemonLog(config, "poll", {
    // the log says itself that it cannot be written (every minute); the status keeps why
    onWriteError: (why) => trouble.degrade("event-log", "event-log", why, { say: false }),
  });
  // the events someone should hear about are sent on their channels, from a queue of their own
  const notifier = new Notifier({ config, events: o.events ?? log!, env: o.env });
  const events = notifier.tap(o.events ?? log!);
  try {
    const lock = await lockOrRefuse(pidfile, {
      what: "a poller",
      stop: "the-loop poll stop",
      blocked: (pid) => events.emit("poller.blocked", { pidfile, holder_pid: pid }),
    });
    held = true;
    const ghStop = new AbortController();
    /** The grace timer's cancel, once a stop began. */
    let grace: (() => void) | undefined;
    const onStop = () => {
      // the item in flight finishes; a GitHub wait (a rate limit) is cut short after a grace
      grace = later(() => ghStop.abort(), o.githubGraceMs ?? GITHUB_GRACE_MS, {
        persistent: false,
      });
    };
    if (stopping.aborted) onStop();
    else stopping.addEventListener("abort", onStop, { once: true });
    let result: { cycles: number; failed: CycleFailure[] };
    try {
      result = await cycles({
        o,
        notifier,
        token,
        stateFile,
        pidfile,
        events,
        stopping,
        ghStop,
        trouble,
        status,
        statusFile,
        stateWritten,
        save,
        persist,
        ready,
      });
    } catch (error) {
      events.emit("poll.stopped", { reason: "error", cycles: 0 });
      await lock.release();
      throw error;
    } finally {
      stopping.removeEventListener("abort", onStop);
      grace?.();
    }
    events.emit("poll.stopped", { reason: once ? "once" : "signal", cycles: result.cycles });
    await status.idle(); // the last error is in the status file before the lock goes
    await lock.release();
    return { reason: once ? "once" : "signal", ...result };
  } finally {
    await notifier.close(NOTIFY_DRAIN_MS);
    log?.close();
  }
}

interface CyclesOptions {
  o: PollerDaemonOptions;
  notifier: Notifier;
  token: string;
  stateFile: string;
  pidfile: string;
  events: EventSink;
  stopping: AbortSignal;
  ghStop: AbortController;
  trouble: Trouble;
  status: StatusKeeper;
  statusFile: string;
  stateWritten: (key: string, file: string, error: unknown) => void;
  save: (patch: Partial<PollStatus>) => Promise<void>;
  persist: () => Promise<void>;
  ready: (r: PollerReady) => void;
}

/** Opens the stack (with the control endpoint), then {@linkcode serve}s it; the socket goes with it. */
async function cycles(c: CyclesOptions): Promise<{ cycles: number; failed: CycleFailure[] }> {
  const { o, events, trouble } = c;
  // GitHub's long rate-limit waits are said on stderr and kept in the status file
  const watched = watchedSink(events, ({ wait, line }) => {
    trouble.say(`rate-limit:${wait.at}`, line);
    void c.save({ rateLimit: wait });
  });
  const warn = (m: string) => o.warn(`poll: warning: ${m}`);
  const ledger = await Ledger.load(c.stateFile);
  const live = await openLiveIngress({
    loaded: o.loaded,
    token: c.token,
    events: watched,
    env: o.env,
    cwd: o.cwd,
    warn,
    signal: c.ghStop.signal,
    trouble,
    control: { via: "poll" },
    notifier: c.notifier,
  });
  try {
    return await serve(c, live, ledger);
  } finally {
    await live.control?.close(); // whatever stopped it
  }
}

/** Says it is ready, runs the loop, drains. */
async function serve(
  c: CyclesOptions,
  live: LiveIngress,
  ledger: Ledger,
): Promise<{ cycles: number; failed: CycleFailure[] }> {
  const { o, events, trouble, status, statusFile, stateWritten } = c;
  const config = o.loaded.config;
  const warn = (m: string) => o.warn(`poll: warning: ${m}`);
  const { ingress } = live;
  const { github: gh, registry, control, router } = ingress;
  const poller = new Poller({
    gh,
    sink: router,
    ledger,
    sessions: registry,
    control: new ControlDirView(control),
    events,
    parseControl: (text) => parseControl(text, ingress.controlConfig()),
  });
  let settings = settingsFromConfig(config);
  let warned = pollingProblems(settings);
  for (const problem of warned) {
    warn(problem);
    events.emit("poll.misconfigured", { problem });
  }
  const intervalSeconds = o.intervalSeconds ?? settings.intervalSeconds;
  events.emit("poll.started", {
    interval_seconds: intervalSeconds,
    sources: settings.sources.length,
    repos: [...new Set(settings.sources.flatMap((s) => s.repos))],
    state_file: c.stateFile,
    once: o.once ?? false,
  });
  c.ready({
    pid: Deno.pid,
    intervalSeconds,
    sources: settings.sources.length,
    stateFile: c.stateFile,
    pidfile: c.pidfile,
    statusFile,
  });
  await c.persist();
  let failed: CycleFailure[] = [];
  const { cycles } = await runLoop({
    poller,
    once: o.once ?? false,
    signal: c.stopping,
    intervalSeconds: o.intervalSeconds,
    status,
    afterCycle: () => gh.flush(),
    onStateError: (what, error) =>
      what === "status"
        ? stateWritten("status", statusFile, error)
        : stateWritten("etags", gh.cache.path ?? "the ETag cache", error),
    onCycle: (report) => {
      failed = report.failed;
      for (const f of report.failed) {
        trouble.failed(f.kind, f.count > 1 ? `${f.message} (and ${f.count - 1} more)` : f.message);
      }
    },
    settings: async () => {
      const before = ingress.config;
      const next = await live.refresh();
      if (next !== before) {
        settings = settingsFromConfig(next);
        const now = pollingProblems(settings);
        for (const w of now.filter((w) => !warned.includes(w))) warn(w);
        warned = now;
      }
      return settings;
    },
  });
  await live.control?.close(); // no verb starts once the dispatcher goes
  await ingress.drain();
  await gh.flush().catch((e) => stateWritten("etags", gh.cache.path ?? "the ETag cache", e));
  return { cycles, failed };
}
