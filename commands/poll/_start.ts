/**
 * What `poll start` runs (imported when it runs, so that every other command starts without the
 * poller, the router and the dispatcher loaded). See `start.ts`.
 *
 * @module
 */
import { ConfigReloader } from "../../daemon/mod.ts";
import { parseControl } from "../../dispatch/mod.ts";
import { UsageError } from "../../errors.ts";
import type { EventSink } from "../../events/mod.ts";
import { resolveTokenFromConfig } from "../../github/mod.ts";
import { openIngress } from "../../ingress/mod.ts";
import {
  ControlDirView,
  Ledger,
  Poller,
  pollingProblems,
  runLoop,
  settingsFromConfig,
} from "../../poll/mod.ts";
import { loadCliConfig } from "../_config.ts";
import { lockOrRefuse, openDaemonLog, pathFlag } from "../_daemon.ts";
import { type CliContext, println } from "../context.ts";
import { dryRun } from "./_dry_run.ts";

import type { StartFlags } from "./start.ts";

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
  const events = openDaemonLog(config, "poll");
  const lock = await lockOrRefuse(pidfile, {
    what: "a poller",
    stop: "the-loop poll stop",
    blocked: (pid) => events.emit("poller.blocked", { pidfile, holder_pid: pid }),
  });
  const shutdown = new AbortController();
  const ghStop = new AbortController();
  interrupted.then(() => {
    shutdown.abort(); // no new item starts
    // the item in flight finishes; a GitHub wait (a rate limit) is cut short after a grace
    Deno.unrefTimer(setTimeout(() => ghStop.abort(), GITHUB_GRACE_MS));
  });
  let cycles = 0;
  try {
    cycles = await daemon({
      ctx,
      loaded,
      token,
      stateFile,
      interval,
      flags,
      events,
      shutdown,
      ghStop,
    });
  } catch (error) {
    events.emit("poll.stopped", { reason: "error", cycles });
    await lock.release();
    throw error;
  }
  events.emit("poll.stopped", { reason: flags.once ? "once" : "signal", cycles });
  await lock.release();
  println(ctx, "poll: stopped");
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
}

async function daemon(o: DaemonOptions): Promise<number> {
  const { ctx, events } = o;
  const config = o.loaded.config;
  const warn = (m: string) => ctx.warn(`poll: warning: ${m}\n`);
  const ledger = await Ledger.load(o.stateFile);
  const ingress = await openIngress({
    loaded: o.loaded,
    token: o.token,
    events,
    env: ctx.env,
    cwd: ctx.cwd,
    warn,
    signal: o.ghStop.signal,
  });
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
  const { cycles } = await runLoop({
    poller,
    once: o.flags.once ?? false,
    signal: o.shutdown.signal,
    intervalSeconds: o.interval,
    statusRoot: config.state.root,
    afterCycle: () => gh.flush(),
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
  await gh.flush();
  return cycles;
}
