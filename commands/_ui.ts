/**
 * The status page as the commands start it (`ui/mod.ts` serves it): its controls wired to the
 * CLI verbs themselves — a reply is `the-loop reply`, a verdict `the-loop verdict`, pause,
 * resume and stop `the-loop sessions …`, a suspension's resume `the-loop hooks resume` — each
 * run with a context that keeps what it printed (the answer the page shows), so the hooks asked
 * and the events written are the verb's own. The actor is the CLI's default: `$THE_LOOP_ACTOR`,
 * else `$USER`.
 *
 * {@linkcode startDaemonUi} is what `poll start` and `gh-webhook start` call once the daemon
 * runs: with `ui.enabled` it serves the page and prints its URL; a page that cannot start (its
 * port in use, a host it may not bind) is said on stderr and as `ui.failed`, and the daemon goes
 * on without it.
 *
 * @module
 */
import type { LoadedConfig } from "../config/mod.ts";
import { messageOf } from "../errors.ts";
import { EventLog } from "../events/mod.ts";
import type { ControlAnswer, ControlRequest, UiControls, UiServer } from "../ui/mod.ts";
import { type CliContext, println } from "./context.ts";

/** A context like `ctx` whose output is kept, for the page to show. */
function capturing(ctx: CliContext): { ctx: CliContext; lines: () => string } {
  let out = "";
  return {
    ctx: {
      ...ctx,
      write: (text) => void (out += text),
      warn: (text) => void (out += text),
      // the page is a person's: never an agent's session's
      env: (name) => name === "THE_LOOP_SESSION" ? undefined : ctx.env(name),
      colour: undefined,
    },
    lines: () => out.trim(),
  };
}

/** Runs one control through its CLI verb, with `ctx`'s environment and config. */
async function runControl(ctx: CliContext, req: ControlRequest): Promise<void> {
  switch (req.action) {
    case "reply": {
      const { runVerb } = await import("./_verb.ts");
      return await runVerb({
        verb: "reply",
        ref: req.ref,
        fields: { text: req.text, actor: actorOf(ctx) },
        needsCapability: false,
        format: "text",
      }, ctx);
    }
    case "verdict": {
      const { runVerb } = await import("./_verb.ts");
      return await runVerb({
        verb: "verdict",
        ref: req.ref,
        fields: { outcome: req.outcome, actor: actorOf(ctx) },
        needsCapability: false,
        format: "text",
      }, ctx);
    }
    case "pause":
    case "resume":
    case "stop": {
      const { runSessionVerb } = await import("./sessions/verbs.ts");
      return await runSessionVerb(req.action, req.ref, { comment: true }, ctx);
    }
    case "resume-suspension": {
      const { resumeSuspended } = await import("./hooks/suspended.ts");
      return await resumeSuspended(ctx, req.id, {});
    }
  }
}

function actorOf(ctx: CliContext): string {
  const actor = [ctx.env("THE_LOOP_ACTOR"), ctx.env("USER")].map((a) => a?.trim()).find((a) => a);
  if (!actor) throw new Error("who acts? set $THE_LOOP_ACTOR (or $USER) for the daemon");
  return actor;
}

/** The page's controls over `ctx`: each the CLI verb, its printed lines the answer. */
export function uiControls(ctx: CliContext): UiControls {
  return async (req: ControlRequest): Promise<ControlAnswer> => {
    const run = capturing(ctx);
    try {
      await runControl(run.ctx, req);
      return { ok: true, message: run.lines() || "done" };
    } catch (error) {
      const said = run.lines();
      return { ok: false, message: [said, messageOf(error)].filter((s) => s).join("\n") };
    }
  };
}

/** Where and how to serve the page. */
export interface ServeUiOptions {
  /** Default: `ui.host`. */
  host?: string;
  /** Default: `ui.port`. */
  port?: number;
  /** Aborting it closes the page. */
  signal?: AbortSignal;
}

/** Serves the page for `loaded` (the commands' one way in to `startUi`). Rejects when it cannot. */
export async function serveUi(
  ctx: CliContext,
  loaded: LoadedConfig,
  o: ServeUiOptions = {},
): Promise<{ server: UiServer; events: EventLog }> {
  const { config } = loaded;
  const { startUi, TERMINAL_ASSETS, terminalSocket } = await import("../ui/mod.ts");
  const { loopsOf } = await import("./_loops.ts");
  let loops;
  try {
    loops = loopsOf(loaded);
  } catch { /* the daemon says so; gates then show no outcomes */ }
  const socket = ctx.env("THE_LOOP_TMUX_SOCKET")?.trim();
  const events = new EventLog({
    path: config.eventLog.path,
    source: "ui",
    enabled: config.eventLog.enabled,
    warn: (m) => ctx.warn(m + "\n"),
  });
  const token = ctx.env(config.ui.tokenEnv)?.trim() || undefined;
  try {
    const server = await startUi({
      stateRoot: config.state.root,
      config,
      host: o.host ?? config.ui.host,
      port: o.port ?? config.ui.port,
      token,
      signal: o.signal,
      controls: uiControls(ctx),
      loops,
      tmuxArgs: socket ? ["-L", socket] : [],
      events,
      warn: (m) => ctx.warn(`warning: ${m}\n`),
      terminal: config.ui.terminal === "off" ? undefined : terminalSocket,
      assets: TERMINAL_ASSETS,
    });
    return { server, events };
  } catch (error) {
    events.close();
    throw error;
  }
}

/**
 * A daemon's page: served when `ui.enabled`, its URL printed; a failure said and logged
 * (`ui.failed`), and the daemon goes on. Resolves to its close (a no-op when none runs).
 */
export async function startDaemonUi(
  ctx: CliContext,
  loaded: LoadedConfig,
): Promise<() => Promise<void>> {
  const { ui } = loaded.config;
  if (!ui.enabled) return () => Promise.resolve();
  try {
    const { server, events } = await serveUi(ctx, loaded);
    println(ctx, `ui: the status page is at ${server.url}`);
    return async () => {
      await server.close();
      events.close();
    };
  } catch (error) {
    const message = messageOf(error);
    const events = new EventLog({
      path: loaded.config.eventLog.path,
      source: "ui",
      enabled: loaded.config.eventLog.enabled,
    });
    events.emit("ui.failed", { host: ui.host, port: ui.port, error: message });
    events.close();
    ctx.warn(`warning: ${message}; the daemon runs on without the status page\n`);
    return () => Promise.resolve();
  }
}
