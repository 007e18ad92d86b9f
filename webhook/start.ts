/**
 * The webhook receiver as a daemon, startable in-process: {@linkcode startReceiver} takes the
 * pidfile's lock (a second receiver is refused, naming the first), opens the event log and — with
 * routing on — the ingress stack (the token checked, the config hot-reloaded before each event:
 * `ingress/reload.ts`), binds the HTTP intake (`receiver.ts`), and says it is `ready` with the
 * delivery URL. `gh-webhook-status.json` is kept (at most one write a second) and `/health` says
 * why it is degraded. `the-loop gh-webhook start` parses its flags into
 * {@linkcode ReceiverDaemonOptions}, prints, and maps SIGINT/SIGTERM to `stop()`.
 *
 * | it stops when                  | `stopped.reason` | then                                          |
 * | ------------------------------ | ---------------- | --------------------------------------------- |
 * | `stop()` / the `signal`        | `signal`         | new connections refused; requests and queued  |
 * |                                |                  | routing get `graceMs` (5 s); what did not     |
 * |                                |                  | finish stays in the inbox (`handedBack`)       |
 * | its HTTP thread died           | `died`           | the same; it answered nothing since (a        |
 * |                                |                  | supervisor should start it again)             |
 *
 * ```ts
 * const receiver = startReceiver({ loaded, env, cwd, warn: console.error, port: 0 });
 * const { url } = await receiver.ready; // http://127.0.0.1:41234/gh-webhook
 * const { reason, handedBack } = await receiver.stop();
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { later, pacer } from "../async/mod.ts";
import type { EnvReader, LoadedConfig } from "../config/mod.ts";
import {
  lockOrRefuse,
  openDaemonLog,
  type RateLimitWait,
  runDaemon,
  type Running,
  Trouble,
  watchedSink,
} from "../daemon/mod.ts";
import { messageOf, UsageError } from "../errors.ts";
import type { EventLog, EventSink } from "../events/mod.ts";
import type { LiveIngress } from "../ingress/mod.ts";
import { Receiver } from "./receiver.ts";
import { webhookStatusPath, writeWebhookStatus } from "./status.ts";
import { Notifier } from "../notify/mod.ts";

/** How long a stopping daemon waits for the notifications still queued. */
const NOTIFY_DRAIN_MS = 5_000;

/** How long a stopping receiver waits for requests and routing in progress. */
export const DRAIN_MS = 5_000;

/** Options of {@linkcode startReceiver}; absent settings are the config's (`webhooks.ghWebhook`). */
export interface ReceiverDaemonOptions {
  /** The config as loaded; with routing, its file is watched for edits (hot reload). */
  loaded: LoadedConfig;
  env: EnvReader;
  /** The working directory (sessions run there when `spawnWorkdir` is empty). */
  cwd: string;
  /** Told each line meant for stderr (`the-loop: warning: …`), without its newline. */
  warn(line: string): void;
  /** The interface to bind. */
  host?: string;
  /** The port; `0` picks a free one (`ready` says which). */
  port?: number;
  /** The delivery path, e.g. `/gh-webhook`. */
  path?: string;
  /** The pidfile to lock. */
  pidfile?: string;
  /**
   * The NAME of the variable holding the webhook secret. Given, it is refused when the agent's
   * environment would carry it (the config's own `secretEnv` is checked when it loads).
   */
  secretEnv?: string;
  /** Route accepted deliveries (`--route` / `--no-route`). */
  route?: boolean;
  /** Where the events go; default the config's event log (`eventLog`). */
  events?: EventSink;
  /** Aborting it is `stop()` (SIGINT/SIGTERM, for the command). */
  signal?: AbortSignal;
  /** Milliseconds since the epoch (the status file's `startedAt`, the trouble's pacing); default `Date.now`. */
  now?: () => number;
  /** How long a stop waits for requests and routing in progress; default {@linkcode DRAIN_MS}. */
  graceMs?: number;
}

/** What a listening receiver says (the command prints its ready line from it). */
export interface ReceiverReady {
  pid: number;
  /** The delivery URL, e.g. `http://127.0.0.1:8787/gh-webhook`. */
  url: string;
  /** The bound address. */
  addr: Deno.NetAddr;
  pidfile: string;
  /** `gh-webhook-status.json`. */
  statusFile: string;
  /** Whether accepted deliveries are routed. */
  routing: boolean;
  /** Whether deliveries are signature-checked (a secret was found). */
  verified: boolean;
}

/** Why a receiver stopped (with the lock let go and the status file's last word written). */
export interface ReceiverStopped {
  reason: "signal" | "died";
  /** With `died`: why the HTTP thread died. */
  died?: string;
  /** Delivery ids accepted but not routed by the deadline (they stay in the inbox). */
  handedBack: string[];
}

/** Starts the receiver in this process: see the module doc. */
export function startReceiver(o: ReceiverDaemonOptions): Running<ReceiverReady, ReceiverStopped> {
  return runDaemon((d) => run(o, d.ready, d.stopping), { signal: o.signal });
}

/**
 * The settings in force: the options', else the config's. The routing stack (`ingress/`,
 * `dispatch/`) is imported only when it is used, so `webhook/mod.ts` stays light for `status`.
 */
async function settingsOf(o: ReceiverDaemonOptions) {
  const hook = o.loaded.config.webhooks.ghWebhook;
  const secretEnv = o.secretEnv ?? hook.secretEnv;
  // the config's check knows only the file's secretEnv: a flag naming a variable the agent is
  // handed would put the secret in the agent's environment
  const { harnessEnv, agentToken } = hook.routing;
  if (
    o.secretEnv !== undefined &&
    ((await import("../dispatch/mod.ts")).harnessEnvAllowlisted(secretEnv) ||
      harnessEnv.pass.includes(secretEnv) || secretEnv in harnessEnv.set ||
      agentToken?.env === secretEnv)
  ) {
    throw new UsageError(
      `--secret-env: ${secretEnv} is in the agent's environment (its allowlist, or ` +
        `webhooks.ghWebhook.routing.harnessEnv or agentToken names it), and the webhook secret must never reach the ` +
        `agent (it forges signed deliveries): hold the secret in another variable`,
    );
  }
  return {
    host: o.host ?? hook.host,
    port: o.port ?? hook.port,
    path: o.path ?? hook.path,
    pidfile: o.pidfile ?? hook.pidfile,
    secretEnv,
    route: o.route ?? hook.routing.enabled,
  };
}

async function run(
  o: ReceiverDaemonOptions,
  ready: (r: ReceiverReady) => void,
  stopping: AbortSignal,
): Promise<ReceiverStopped> {
  const { loaded } = o;
  const { config } = loaded;
  const settings = await settingsOf(o);
  const now = o.now ?? Date.now;
  const warn = (message: string) => o.warn(`the-loop: warning: ${message}`);
  const root = config.state.root;
  const statusFile = webhookStatusPath(root);
  const startedAt = new Date(now()).toISOString();
  // set once listening: the status file is written from then on (and no more once stopped)
  const live: { url?: string; receiver?: Receiver; closed?: boolean } = {};
  let rateLimit: RateLimitWait | null = null;
  let writing = Promise.resolve();
  /** Whether a status write is planned (the pacer's run not yet come). */
  let planned = false;
  // failures: said once per kind per 10 minutes; degraded reasons go to /health and the status
  const trouble: Trouble = new Trouble({
    prefix: "the-loop: warning",
    warn: o.warn,
    now,
    onChange: () => {
      live.receiver?.degraded(trouble.reasons);
      schedule();
    },
  });
  function write(): void {
    planned = false;
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
  }
  const pace = pacer(write, {
    intervalMs: 1000,
    later: (run, ms) => later(run, ms, { persistent: false }),
  });
  /** Writes the status file, at most once a second (a burst of failures is one write). */
  function schedule(): void {
    if (live.url === undefined || live.closed) return;
    planned = true;
    pace.schedule();
  }
  const log: EventLog | undefined = o.events ? undefined : openDaemonLog(config, "gh-webhook", {
    // the log says itself that it cannot be written (every minute); /health and the status say why
    onWriteError: (why) => trouble.degrade("event-log", "event-log", why, { say: false }),
  });
  // the events someone should hear about are sent on their channels, from a queue of their own
  const notifier = new Notifier({ config, events: o.events ?? log!, env: o.env });
  const events = notifier.tap(o.events ?? log!);
  try {
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
    let routing: LiveIngress | undefined;
    let receiver: Receiver;
    let died!: (message: string | undefined) => void;
    const death = new Promise<string | undefined>((resolve) => (died = resolve));
    const secret = o.env(settings.secretEnv) || undefined;
    try {
      if (settings.route) {
        const { openLiveIngress } = await import("../ingress/mod.ts");
        routing = await openLiveIngress({
          loaded,
          cwd: o.cwd,
          env: o.env,
          events: watched,
          warn,
          signal: shutdown.signal,
          trouble,
          control: { via: "gh-webhook" },
          notifier,
        });
      }
      if (!secret) {
        warn(
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
          maxConnections: config.webhooks.ghWebhook.maxConnections,
          headersTimeoutMs: config.webhooks.ghWebhook.headersTimeoutSeconds * 1000,
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
    if (!settings.route) warn("--no-route: deliveries are accepted and logged, not routed");
    live.receiver = receiver;
    live.url = receiver.url;
    receiver.degraded(trouble.reasons);
    schedule();
    ready({
      pid: Deno.pid,
      url: receiver.url,
      addr: receiver.addr,
      pidfile: settings.pidfile,
      statusFile,
      routing: routing !== undefined,
      verified: secret !== undefined,
    });
    // a receiver whose HTTP thread died answers nothing: stop, and say so (a supervisor restarts it)
    // settled by the HTTP thread's death (its message) or by a stop (none), whichever is first
    if (stopping.aborted) died(undefined);
    else stopping.addEventListener("abort", () => died(undefined), { once: true });
    const dead = await death;
    const report = await receiver.stop({ graceMs: o.graceMs ?? DRAIN_MS });
    shutdown.abort();
    await routing?.close().catch(() => {});
    if (planned) {
      pace.ran();
      write(); // the last word, at once
    }
    live.closed = true;
    await writing;
    await lock.release();
    if (report.handedBack.length > 0) {
      warn(
        `${report.handedBack.length} accepted deliveries were not routed before the deadline; ` +
          `they stay in the webhook inbox and are replayed at the next start: ` +
          report.handedBack.join(", "),
      );
    }
    return dead === undefined
      ? { reason: "signal", handedBack: report.handedBack }
      : { reason: "died", died: dead, handedBack: report.handedBack };
  } finally {
    await notifier.close(NOTIFY_DRAIN_MS);
    log?.close();
  }
}
