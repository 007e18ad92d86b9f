/**
 * What `gh-webhook start` runs (imported when it runs, so that every other command starts without
 * the receiver, the router and the dispatcher loaded). See `start.ts`.
 *
 * @module
 */
import { join } from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import { ConfigReloader, type RateLimitWait, Trouble } from "../daemon/mod.ts";
import { harnessEnvAllowlisted } from "../dispatch/mod.ts";
import { messageOf, UsageError } from "../errors.ts";
import { Receiver, webhookStatusPath, writeWebhookStatus } from "./mod.ts";
import { loadCliConfig } from "../commands/_config.ts";
import { lockOrRefuse, openDaemonLog, pathFlag, watchedSink } from "../commands/_daemon.ts";
import { type CliContext, println } from "../commands/context.ts";
import { openRouting, type Routing } from "../ingress/reload.ts";

import type { StartFlags } from "../commands/gh_webhook/start.ts";

/** How long a stopping receiver waits for requests and routing in progress. */
const DRAIN_MS = 5_000;

/** The receiver's settings: the config's, with the flags winning. */
interface Settings {
  host: string;
  port: number;
  path: string;
  pidfile: string;
  secretEnv: string;
  route: boolean;
}

function settingsOf(flags: StartFlags, loaded: LoadedConfig, cwd: string): Settings {
  const hook = loaded.config.webhooks.ghWebhook;
  const port = flags.port === undefined ? hook.port : Number(flags.port);
  if (!/^\d+$/.test(String(flags.port ?? port)) || port > 65535) {
    throw new UsageError(`--port: must be an integer from 0 to 65535 (got "${flags.port}")`);
  }
  const path = flags.path ?? hook.path;
  if (!path.startsWith("/")) throw new UsageError(`--path: must start with / (got "${path}")`);
  const secretEnv = flags.secretEnv ?? hook.secretEnv;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) {
    throw new UsageError(
      `--secret-env: must be the NAME of an environment variable, e.g. THE_LOOP_GH_WEBHOOK_SECRET`,
    );
  }
  // the config's check knows only the file's secretEnv: a flag naming a variable the agent is
  // handed would put the secret in the agent's environment
  const { harnessEnv, agentToken } = hook.routing;
  if (
    flags.secretEnv !== undefined &&
    (harnessEnvAllowlisted(secretEnv) || harnessEnv.pass.includes(secretEnv) ||
      secretEnv in harnessEnv.set ||
      agentToken?.env === secretEnv)
  ) {
    throw new UsageError(
      `--secret-env: ${secretEnv} is in the agent's environment (its allowlist, or ` +
        `webhooks.ghWebhook.routing.harnessEnv or agentToken names it), and the webhook secret must never reach the ` +
        `agent (it forges signed deliveries): hold the secret in another variable`,
    );
  }
  const pidfile = pathFlag(flags.pidfile, hook.pidfile, cwd);
  return {
    host: flags.host ?? hook.host,
    port,
    path,
    pidfile,
    secretEnv,
    route: flags.route ?? hook.routing.enabled,
  };
}

function warn(ctx: CliContext, message: string): void {
  ctx.warn(`the-loop: warning: ${message}\n`);
}

/** Runs `gh-webhook start`. */
export async function run(flags: StartFlags, ctx: CliContext): Promise<void> {
  const interrupted = ctx.interrupted(); // listening for the signals before anything is held
  const loaded = await loadCliConfig(ctx);
  const { config } = loaded;
  const settings = settingsOf(flags, loaded, ctx.cwd);
  const root = config.state.root;
  const statusFile = webhookStatusPath(root);
  const startedAt = new Date().toISOString();
  // set once listening: the status file is written from then on
  const live: { url?: string; receiver?: Receiver } = {};
  let rateLimit: RateLimitWait | null = null;
  let writing = Promise.resolve();
  let lastWrite = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // failures: said once per kind per 10 minutes; degraded reasons go to /health and the status
  const trouble: Trouble = new Trouble({
    prefix: "the-loop: warning",
    warn: (line) => ctx.warn(line + "\n"),
    onChange: () => {
      live.receiver?.degraded(trouble.reasons);
      schedule();
    },
  });
  /** Writes the status file, at most once a second (a burst of failures is one write). */
  function schedule(): void {
    if (live.url === undefined || timer !== undefined) return;
    const wait = Math.max(0, lastWrite + 1000 - Date.now());
    const id = setTimeout(() => {
      timer = undefined;
      lastWrite = Date.now();
      writing = writing.then(() =>
        writeWebhookStatus(root, {
          pid: Deno.pid,
          url: live.url!,
          startedAt,
          lastError: trouble.lastError ?? null,
          rateLimit,
          degraded: trouble.reasons,
        }).then(
          () => trouble.degrade("status", "state-write", undefined),
          (e) => trouble.degrade("status", "state-write", `${statusFile}: ${messageOf(e)}`),
        )
      );
    }, wait);
    timer = id;
    Deno.unrefTimer(id);
  }
  const events = openDaemonLog(config, "gh-webhook", {
    // the log says itself that it cannot be written (every minute); /health and the status say why
    onWriteError: (why) => trouble.degrade("event-log", "event-log", why, { say: false }),
  });
  const watched = watchedSink(events, ({ wait, line }) => {
    trouble.say(`rate-limit:${wait.at}`, line);
    rateLimit = wait;
    schedule();
  });
  const lock = await lockOrRefuse(settings.pidfile, {
    what: "gh-webhook",
    stop: "the-loop gh-webhook stop",
    blocked: (pid) =>
      events.emit("webhook.blocked", { holder_pid: pid, pidfile: settings.pidfile }),
  });
  const shutdown = new AbortController();
  let routing: Routing | undefined;
  let receiver: Receiver;
  let died!: (message: string) => void;
  const death = new Promise<string>((resolve) => (died = resolve));
  try {
    if (settings.route) {
      const reloader = new ConfigReloader({
        loaded,
        env: ctx.env,
        cwd: ctx.cwd,
        events,
        warn: (m) => warn(ctx, m),
      });
      routing = await openRouting({
        loaded,
        cwd: ctx.cwd,
        reloader,
        env: ctx.env,
        events: watched,
        warn: (m) => warn(ctx, m),
        signal: shutdown.signal,
        trouble,
      });
    }
    const secret = ctx.env(settings.secretEnv) || undefined;
    if (!secret) {
      warn(
        ctx,
        `no webhook secret in $${settings.secretEnv}: deliveries are accepted without a ` +
          `signature check; set it to the secret configured on the GitHub webhook`,
      );
      events.emit("webhook.unverified", { secret_env: settings.secretEnv });
    }
    try {
      receiver = await Receiver.start({
        hostname: settings.host,
        port: settings.port,
        path: settings.path,
        secret,
        sink: routing?.sink,
        events,
        inbox: config.webhooks.ghWebhook.inbox.enabled
          ? {
            dir: join(config.state.root, "webhook-inbox"),
            maxBytes: config.webhooks.ghWebhook.inbox.maxBytes,
          }
          : undefined,
        maxConnections: loaded.config.webhooks.ghWebhook.maxConnections,
        headersTimeoutMs: loaded.config.webhooks.ghWebhook.headersTimeoutSeconds * 1000,
        onDeath: died,
      });
    } catch (error) {
      throw new Error(
        `cannot listen on ${settings.host}:${settings.port} (${messageOf(error)}); ` +
          `pick another --port (0 picks a free one) or --host`,
      );
    }
  } catch (error) {
    await routing?.close().catch(() => {});
    await lock.release();
    throw error;
  }
  if (!settings.route) warn(ctx, "--no-route: deliveries are accepted and logged, not routed");
  live.receiver = receiver;
  live.url = receiver.url;
  receiver.degraded(trouble.reasons);
  schedule();
  println(ctx, `gh-webhook: listening on ${receiver.url} (pid ${Deno.pid})`);
  // a receiver whose HTTP thread died answers nothing: stop, and fail so a supervisor restarts it
  const dead = await Promise.race([interrupted.then(() => undefined), death]);
  const report = await receiver.stop({ graceMs: DRAIN_MS });
  shutdown.abort();
  await routing?.close().catch(() => {});
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
    lastWrite = -Infinity;
    schedule(); // the last word, at once
  }
  await new Promise((r) => setTimeout(r, 0));
  await writing;
  await lock.release();
  if (report.handedBack.length > 0) {
    warn(
      ctx,
      `${report.handedBack.length} accepted deliveries were not routed before the deadline; ` +
        `they stay in the webhook inbox and are replayed at the next start: ` +
        report.handedBack.join(", "),
    );
  }
  if (dead !== undefined) {
    throw new Error(`the receiver's HTTP thread died (${dead}); it stopped — start it again`);
  }
  println(ctx, "gh-webhook: stopped");
}
