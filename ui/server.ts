/**
 * {@linkcode startUi}: the status page served with `Deno.serve` over a state root — the page,
 * its JSON API, the event stream and the controls (`_routes.ts`). Loopback only (`127.0.0.1` by
 * default) unless `ui.exposed: true` and a token (`guard.ts`); the token is never written
 * anywhere. A port in use rejects with an error saying so (the daemons say it and go on without
 * the page). Closing ends the open streams first, then the server.
 *
 * @example
 * ```ts
 * // startUi, from ui/mod.ts
 * const ui = await startUi({ stateRoot, config, host: "127.0.0.1", port: 0 });
 * console.log(ui.url); // http://127.0.0.1:40123/
 * await ui.close();
 * ```
 *
 * @module
 */
import type { CliConfig } from "../config/mod.ts";
import type { EventSink } from "../events/mod.ts";
import type { LoopSet } from "../loops/mod.ts";
import { messageOf } from "../errors.ts";
import { cookieValueOf, exposureProblem } from "./guard.ts";
import { routes } from "./_routes.ts";
import { EventStreams } from "./_sse.ts";
import { PAGE_ASSETS, pageWith } from "./_assets.ts";
import { StateReader } from "./read.ts";
import type { Asset, TerminalMode, TerminalSeam, UiControls } from "./types.ts";

/** Options of {@linkcode startUi}. */
export interface UiOptions {
  /** The state root served (the config's `state.root`, or `the-loop ui --root`). */
  stateRoot: string;
  /** The loaded config (its `ui:` keys, the registry, the log, the pidfiles). */
  config: CliConfig;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The token of an exposed page (`ui.tokenEnv`'s value); required when the host is not loopback. */
  token?: string;
  /** Aborting it closes the server. */
  signal?: AbortSignal;
  /** The web terminal (`GET /api/v1/items/REF/terminal`); absent: 404. */
  terminal?: TerminalSeam;
  /** More assets, by path (`/assets/terminal.js`, …); they win over the built-in ones. */
  assets?: Record<string, Asset>;
  /** The controls, each a CLI verb; absent: every control POST answers 501. */
  controls?: UiControls;
  /** The loops in force (gates' outcomes). */
  loops?: LoopSet;
  /** The daemon's tmux server: `["-L", socket]`; default `[]` (the user's own). */
  tmuxArgs?: string[];
  /** Where `ui.started` and `ui.control` go; default nowhere. */
  events?: EventSink;
  /** The clock; default `new Date()`. */
  now?: () => Date;
  /** Subscribers of the event stream at once; default 16. */
  maxSubscribers?: number;
  /** The stream's keep-alive comment interval; default 15 s. */
  keepAliveMs?: number;
  /** How often the stream looks for new lines; default 250 ms. */
  pollMs?: number;
  /** Told what could not be read; default nowhere. */
  warn?: (message: string) => void;
}

/** A started page. */
export interface UiServer {
  /** `http://HOST:PORT/`. */
  url: string;
  close(): Promise<void>;
}

/** A 32-byte random token, hex. */
function randomToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Starts the page: see the module doc. Rejects when it may not, or cannot, listen. */
export async function startUi(o: UiOptions): Promise<UiServer> {
  const ui = o.config.ui;
  const problem = exposureProblem({
    host: o.host,
    exposed: ui.exposed,
    token: o.token,
    tokenEnv: ui.tokenEnv,
  });
  if (problem) throw new Error(problem);
  const now = o.now ?? (() => new Date());
  const terminalMode: TerminalMode = ui.terminal;
  const tmuxArgs = o.tmuxArgs ?? [];
  const config = { ...o.config, state: { ...o.config.state, root: o.stateRoot } };
  const reader = new StateReader({
    config,
    loops: o.loops,
    tmuxArgs,
    terminal: terminalMode,
    startedAt: now(),
    warn: o.warn,
  });
  const streams = new EventStreams({
    path: config.eventLog.path,
    max: o.maxSubscribers ?? 16,
    keepAliveMs: o.keepAliveMs ?? 15_000,
    pollMs: o.pollMs ?? 250,
  });
  const csrf = randomToken();
  const exposed = o.token !== undefined && o.token !== "" && ui.exposed;
  const handler = routes({
    read: () => reader.read(),
    now,
    streams,
    assets: { ...PAGE_ASSETS, ...o.assets },
    page: pageWith({ csrf }),
    csrf,
    controls: o.controls,
    terminal: o.terminal,
    terminalMode,
    tmuxArgs,
    events: o.events,
    ...(exposed ? { auth: { token: o.token!, cookie: await cookieValueOf(o.token!) } } : {}),
  });
  const stop = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: o.host,
      port: o.port,
      signal: stop.signal,
      onListen: () => {},
      onError: (error) =>
        new Response(`the page failed: ${messageOf(error)}\n`, {
          status: 500,
          headers: { "content-type": "text/plain; charset=utf-8" },
        }),
    }, handler);
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `ui: port ${o.port} on ${o.host} is in use: set ui.port (0 picks a free one) or ` +
          "ui.enabled: false",
      );
    }
    throw new Error(`ui: cannot listen on ${o.host}:${o.port}: ${messageOf(error)}`);
  }
  const addr = server.addr;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `http://${shown}:${addr.port}/`;
  o.events?.emit("ui.started", { url, exposed, terminal: terminalMode });
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      streams.closeAll();
      stop.abort();
      await server.finished.catch(() => {});
    })();
  o.signal?.addEventListener("abort", () => void close(), { once: true });
  return { url, close };
}
