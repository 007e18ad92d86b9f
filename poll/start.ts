/**
 * What `poll start` runs (imported when it runs, so that every other command starts without the
 * poller, the router and the dispatcher loaded). See `start.ts`.
 *
 * @module
 */
import { ConfigReloader, Trouble } from "../daemon/mod.ts";
import { parseControl } from "../dispatch/mod.ts";
import { messageOf, UsageError } from "../errors.ts";
import type { EventSink } from "../events/mod.ts";
import { resolveTokenFromConfig } from "../github/mod.ts";
import { openIngress } from "../ingress/mod.ts";
import {
  ControlDirView,
  type CycleFailure,
  Ledger,
  Poller,
  pollingProblems,
  runLoop,
  settingsFromConfig,
  StatusKeeper,
  statusPath,
} from "./mod.ts";
import { loadCliConfig } from "../commands/_config.ts";
import {
  checkToken,
  lockOrRefuse,
  openDaemonLog,
  pathFlag,
  watchedSink,
} from "../commands/_daemon.ts";
import { type CliContext, println } from "../commands/context.ts";
import { dryRun } from "../commands/poll/_dry_run.ts";

import type { StartFlags } from "../commands/poll/start.ts";

/** How long a stopping poller lets the item in flight wait on GitHub. */
const GITHUB_GRACE_MS = 10_000;

function intervalOf(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const n = Number(flag);
  if (!/^\d+$/.test(flag.trim()) || n < 1) {
    throw new UsageError(`--interval: must be a whole number of seconds ≥ 1 (got "${flag}")`);
  }
  return n;
}

/** Runs `poll start`. */
export async function run(flags: StartFlags, ctx: CliContext): Promise<void> {
  const interrupted = ctx.interrupted(); // listening for the signals before anything is held
  const interval = intervalOf(flags.interval);
  if (flags.format === "json" && !flags.dryRun) {
    throw new UsageError("--format json goes with --dry-run (the daemon logs to the event log)");
  }
  const loaded = await loadCliConfig(ctx);
  const { config } = loaded;
  const stateFile = pathFlag(flags.stateFile, config.polling.stateFile, ctx.cwd);
  const { token } = await resolveTokenFromConfig(config, ctx.env);
  if (flags.dryRun) return dryRun({ ctx, loaded, token, stateFile, format: flags.format });
  const pidfile = pathFlag(flags.pidfile, config.polling.pidfile, ctx.cwd);
  const once = flags.once ?? false;
  const status = new StatusKeeper(config.state.root, {
    startedAt: new Date().toISOString(),
    intervalSeconds: interval ?? config.polling.intervalSeconds,
  });
  const statusFile = statusPath(config.state.root);
  let held = false; // the status file is written only while the lock is held
  // a cycle's failures: said once per kind per 10 minutes (--once: each kind once, as errors)
  const trouble = new Trouble({
    prefix: once ? "poll: error" : "poll: warning",
    warn: (line) => ctx.warn(line + "\n"),
    onChange: () => {
      if (held) persist();
    },
  });
  function persist(): void {
    status.update({ lastError: trouble.lastError ?? null, degraded: trouble.reasons }).then(
      () => trouble.degrade("status", "state-write", undefined),
      (e) => trouble.degrade("status", "state-write", `${statusFile}: ${messageOf(e)}`),
    );
  }
  const events = openDaemonLog(config, "poll", {
    // the log says itself that it cannot be written (every minute); the status keeps why
    onWriteError: (why) => trouble.degrade("event-log", "event-log", why, { say: false }),
  });
  const lock = await lockOrRefuse(pidfile, {
    what: "a poller",
    stop: "the-loop poll stop",
    blocked: (pid) => events.emit("poller.blocked", { pidfile, holder_pid: pid }),
  });
  held = true;
  const shutdown = new AbortController();
  const ghStop = new AbortController();
  interrupted.then(() => {
    shutdown.abort(); // no new item starts
    // the item in flight finishes; a GitHub wait (a rate limit) is cut short after a grace
    Deno.unrefTimer(setTimeout(() => ghStop.abort(), GITHUB_GRACE_MS));
  });
  let result: { cycles: number; failed: CycleFailure[] } = { cycles: 0, failed: [] };
  try {
    result = await daemon({
      ctx,
      loaded,
      token,
      stateFile,
      interval,
      flags,
      events,
      shutdown,
      ghStop,
      trouble,
      status,
    });
  } catch (error) {
    events.emit("poll.stopped", { reason: "error", cycles: result.cycles });
    await lock.release();
    throw error;
  }
  events.emit("poll.stopped", { reason: once ? "once" : "signal", cycles: result.cycles });
  await status.idle(); // the last error is in the status file before the lock goes
  await lock.release();
  println(ctx, "poll: stopped");
  if (once && result.failed.length > 0) {
    const kinds = result.failed.map((f) => `${f.kind} ×${f.count}`).join(", ");
    throw new Error(
      `poll --once: the cycle had errors (${kinds}): each kind is said above with what to do`,
    );
  }
}

interface DaemonOptions {
  ctx: CliContext;
  loaded: Awaited<ReturnType<typeof loadCliConfig>>;
  token: string;
  stateFile: string;
  interval: number | undefined;
  flags: StartFlags;
  events: EventSink;
  shutdown: AbortController;
  ghStop: AbortController;
  trouble: Trouble;
  status: StatusKeeper;
}

async function daemon(o: DaemonOptions): Promise<{ cycles: number; failed: CycleFailure[] }> {
  const { ctx, events, trouble, status } = o;
  const onStateError = (key: string, file: string, error: unknown) =>
    trouble.degrade(
      key,
      "state-write",
      error === undefined ? undefined : `${file}: ${messageOf(error)}`,
    );
  // GitHub's long rate-limit waits are said on stderr and kept in the status file
  const watched = watchedSink(events, ({ wait, line }) => {
    trouble.say(`rate-limit:${wait.at}`, line);
    status.update({ rateLimit: wait }).then(
      () => onStateError("status", statusPath(config.state.root), undefined),
      (e) => onStateError("status", statusPath(config.state.root), e),
    );
  });
  const config = o.loaded.config;
  const warn = (m: string) => ctx.warn(`poll: warning: ${m}\n`);
  const ledger = await Ledger.load(o.stateFile);
  const ingress = await openIngress({
    loaded: o.loaded,
    token: o.token,
    events: watched,
    env: ctx.env,
    cwd: ctx.cwd,
    warn,
    signal: o.ghStop.signal,
  });
  const { github: gh, registry, control, router } = ingress;
  await checkToken(gh, trouble);
  const poller = new Poller({
    gh,
    sink: router,
    ledger,
    sessions: registry,
    control: new ControlDirView(control),
    events,
    parseControl: (text) => parseControl(text, ingress.controlConfig()),
  });
  const reloader = new ConfigReloader({
    loaded: o.loaded,
    env: ctx.env,
    cwd: ctx.cwd,
    events,
    warn,
  });
  const settings = settingsFromConfig(config);
  let warned = pollingProblems(settings);
  for (const problem of warned) {
    warn(problem);
    events.emit("poll.misconfigured", { problem });
  }
  events.emit("poll.started", {
    interval_seconds: o.interval ?? settings.intervalSeconds,
    sources: settings.sources.length,
    repos: [...new Set(settings.sources.flatMap((s) => s.repos))],
    state_file: o.stateFile,
    once: o.flags.once ?? false,
  });
  const n = settings.sources.length;
  println(
    ctx,
    `poll: started (pid ${Deno.pid}, every ${o.interval ?? settings.intervalSeconds}s, ` +
      `${n} source${n === 1 ? "" : "s"})`,
  );
  await status.update({ lastError: trouble.lastError ?? null, degraded: trouble.reasons }).then(
    () => onStateError("status", statusPath(config.state.root), undefined),
    (e) => onStateError("status", statusPath(config.state.root), e),
  );
  let failed: CycleFailure[] = [];
  const { cycles } = await runLoop({
    poller,
    once: o.flags.once ?? false,
    signal: o.shutdown.signal,
    intervalSeconds: o.interval,
    status,
    afterCycle: () => gh.flush(),
    onStateError: (what, error) =>
      what === "status"
        ? onStateError("status", statusPath(config.state.root), error)
        : onStateError("etags", gh.cache.path ?? "the ETag cache", error),
    onCycle: (report) => {
      failed = report.failed;
      for (const f of report.failed) {
        trouble.failed(f.kind, f.count > 1 ? `${f.message} (and ${f.count - 1} more)` : f.message);
      }
    },
    settings: async () => {
      const next = await reloader.check();
      if (next !== ingress.config) {
        ingress.reconfigure(next);
        const now = pollingProblems(settingsFromConfig(next));
        for (const w of now.filter((w) => !warned.includes(w))) warn(w);
        warned = now;
      }
      return settingsFromConfig(ingress.config);
    },
  });
  await ingress.drain();
  await gh.flush().catch((e) => onStateError("etags", gh.cache.path ?? "the ETag cache", e));
  return { cycles, failed };
}
