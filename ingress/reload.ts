/**
 * What `gh-webhook start` routes through: the shared ingress stack (`openIngress`: router,
 * registry, GitHub, the dispatcher), with the config hot-reloaded before each
 * event (the reloader looks at the file's stat and re-reads it only when it may have changed).
 *
 * @module
 */
import type { EnvReader, LoadedConfig } from "../config/mod.ts";
import type { ConfigReloader, Trouble } from "../daemon/mod.ts";
import { checkToken } from "../commands/_daemon.ts";
import type { EventSink } from "../events/mod.ts";
import { messageOf } from "../errors.ts";
import { resolveTokenFromConfig } from "../github/mod.ts";
import { type IngressEvent, openIngress, type RouteResult, type RouteSink } from "./mod.ts";

/** Options of {@linkcode openRouting}. */
export interface RoutingOptions {
  loaded: LoadedConfig;
  /** The working directory (sessions run there when `spawnWorkdir` is empty). */
  cwd: string;
  reloader: ConfigReloader;
  env: EnvReader;
  events: EventSink;
  /** Told each policy warning (at startup and after a reload that changes the policy). */
  warn: (message: string) => void;
  /** Aborted at shutdown: ends GitHub waits at once. */
  signal: AbortSignal;
  /** Told a route that threw (the last error); the token's check at start says through it. */
  trouble: Trouble;
}

/** The route sink and what to close at shutdown. */
export interface Routing {
  sink: RouteSink;
  close(): Promise<void>;
}

/** Builds the routing; throws (naming the ways to give one) when no GitHub token is found. */
export async function openRouting(opts: RoutingOptions): Promise<Routing> {
  const { config } = opts.loaded;
  const { token } = await resolveTokenFromConfig(config, opts.env);
  const ingress = await openIngress({
    loaded: opts.loaded,
    cwd: opts.cwd,
    env: opts.env,
    token,
    events: opts.events,
    signal: opts.signal,
    warn: opts.warn,
  });
  try {
    await checkToken(ingress.github, opts.trouble); // a bad token stops the start
  } catch (error) {
    await ingress.drain().catch(() => {});
    throw error;
  }
  const sink: RouteSink = {
    async route(event: IngressEvent, o?: { signal?: AbortSignal }): Promise<RouteResult> {
      try {
        ingress.reconfigure(await opts.reloader.check({ asOf: event.receivedAt }));
        return await ingress.router.route(event, o);
      } catch (error) {
        opts.trouble.failed("route", `${event.deliveryId}: ${messageOf(error)}`);
        throw error;
      }
    },
  };
  return {
    sink,
    close: async () => {
      await ingress.drain();
      await ingress.github.flush();
    },
  };
}
