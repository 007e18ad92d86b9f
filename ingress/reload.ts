/**
 * The ingress stack as both daemons keep it (`startPoller`, `startReceiver`): opened by
 * {@linkcode openIngress} with the GitHub token checked at start, and hot-reloaded — before each
 * cycle (the poller) or each event (the receiver) {@linkcode LiveIngress.refresh} asks the
 * {@linkcode ConfigReloader} (`daemon/reload.ts`: a `stat`, a re-read only when the file may have
 * changed, a rebuild only when its content did) and hands a changed config to the stack
 * (`Ingress.reconfigure`: the router's policy, the dispatcher's settings, new warnings told once).
 * With the sessions dispatcher an edit's loops are read as at start (`loopsOfConfig`): an edit
 * whose loops do not read is refused whole, at `file:line:col` (`config.reload_failed`), its
 * `routing.loop` and every other change with it — nothing half-applied.
 * Asked for (`control`), it also serves the daemon's control endpoint over the stack
 * (`control.ts`), closed first at {@linkcode LiveIngress.close}.
 *
 * | the token's check at start          | then                                             |
 * | ----------------------------------- | ------------------------------------------------ |
 * | passes                              | the stack is returned                            |
 * | GitHub refuses it (401/403)         | the stack is drained; the start fails, remedied  |
 * | 404 (GitHub Enterprise, no limits)  | nothing to check against: returned               |
 * | anything else (unreachable, a 5xx)  | said through `trouble`; returned (cycles retry)  |
 *
 * @module
 */
import type { CliConfig, EnvReader, LoadedConfig } from "../config/mod.ts";
import {
  ConfigReloader,
  type ControlServer,
  failureKindOf,
  failureLine,
  type Trouble,
} from "../daemon/mod.ts";
import { loopsOfConfig, SessionDispatcher, type Via } from "../dispatch/mod.ts";
import type { EventSink } from "../events/mod.ts";
import { messageOf } from "../errors.ts";
import { resolveTokenFromConfig } from "../github/mod.ts";
import { prepareControl, serveVerbs } from "./control.ts";
import { type Ingress, openIngress } from "./stack.ts";
import type { IngressEvent, RouteResult, RouteSink } from "./types.ts";

/** Options of {@linkcode openLiveIngress}. */
export interface LiveIngressOptions {
  loaded: LoadedConfig;
  /** The GitHub token; absent: resolved from the config (`github.tokenEnv`, …). */
  token?: string;
  env: EnvReader;
  /** The working directory (sessions run there when `spawnWorkdir` is empty). */
  cwd: string;
  events: EventSink;
  /** Told each policy warning (at start and after a reload that changes it) and each refused edit. */
  warn: (message: string) => void;
  /** Aborted at shutdown: ends GitHub waits at once. */
  signal?: AbortSignal;
  /** The token's check at start says through it; {@linkcode LiveIngress.sink} tells it a route that threw. */
  trouble: Trouble;
  /**
   * Serve the control endpoint of this daemon (`control.ts`): `<state.root>/<via>.sock`, the
   * session key and the launcher made ready, each session given its environment. Absent: none.
   */
  control?: { via: Via };
  /** The daemon's notifications (`Notifier` of `notify/mod.ts`): a reload reroutes them too. */
  notifier?: { reconfigure(config: CliConfig): void };
}

/** The stack, kept up to date with the config file. */
export interface LiveIngress {
  readonly ingress: Ingress;
  /**
   * The config to use now: the file looked at (it need only be as new as `asOf`, a
   * `performance.now()`), the stack reconfigured when it changed.
   */
  refresh(opts?: { asOf?: number }): Promise<CliConfig>;
  /** The router as a sink that refreshes before each event; a route that throws is told to `trouble`. */
  readonly sink: RouteSink;
  /** The control endpoint, when asked for (`control`). */
  readonly control?: ControlServer;
  /**
   * Closes the control endpoint, waits for the stack's work in hand (`Ingress.drain`), then
   * writes the ETag cache.
   */
  close(): Promise<void>;
}

/** Opens the stack; throws (naming the ways to give one) when no token is found or GitHub refuses it. */
export async function openLiveIngress(o: LiveIngressOptions): Promise<LiveIngress> {
  const token = o.token ?? (await resolveTokenFromConfig(o.loaded.config, o.env)).token;
  const prepared = o.control
    ? await prepareControl({ stateRoot: o.loaded.config.state.root, via: o.control.via })
    : undefined;
  const ingress = await openIngress({
    loaded: o.loaded,
    cwd: o.cwd,
    env: o.env,
    token,
    events: o.events,
    signal: o.signal,
    warn: o.warn,
    sessionEnv: prepared?.sessionEnv,
  });
  let control: ControlServer | undefined;
  try {
    await checkToken(ingress.github, o.trouble); // a bad token stops the start
    if (prepared && o.control) {
      control = await serveVerbs({
        socketPath: prepared.socketPath,
        key: prepared.key,
        via: o.control.via,
        dispatcher: ingress.dispatcher,
        events: o.events,
      });
    }
  } catch (error) {
    await ingress.drain().catch(() => {});
    throw error;
  }
  const reloader = new ConfigReloader({
    loaded: o.loaded,
    env: o.env,
    cwd: o.cwd,
    events: o.events,
    warn: o.warn,
    // the loops are the sessions dispatcher's (the journal walks none, and reads none at start)
    ...(ingress.dispatcher instanceof SessionDispatcher ? { validate: validateLoops } : {}),
  });
  const refresh = async (opts: { asOf?: number } = {}): Promise<CliConfig> => {
    const next = await reloader.check(opts);
    if (next !== ingress.config) o.notifier?.reconfigure(next);
    ingress.reconfigure(next);
    return ingress.config;
  };
  return {
    ingress,
    control,
    refresh,
    sink: {
      async route(event: IngressEvent, opts?: { signal?: AbortSignal }): Promise<RouteResult> {
        try {
          await refresh({ asOf: event.receivedAt });
          return await ingress.router.route(event, opts);
        } catch (error) {
          o.trouble.failed("route", `${event.deliveryId}: ${messageOf(error)}`);
          throw error;
        }
      },
    },
    close: async () => {
      await control?.close(); // no verb starts once the dispatcher goes
      await ingress.drain();
      await ingress.github.flush();
    },
  };
}

/** Throws `ProblemsError`, located, for a config whose loops (or `routing.loop`) do not read. */
function validateLoops(
  config: CliConfig,
  o: { locate: LoadedConfig["locate"]; file: string },
): void {
  loopsOfConfig(config, { locate: o.locate, configPath: o.file });
}

/**
 * The start's check of the token (one cheap authenticated request): see the table in the module
 * doc.
 */
async function checkToken(gh: { checkToken(): Promise<unknown> }, trouble: Trouble): Promise<void> {
  try {
    await gh.checkToken();
  } catch (error) {
    const kind = failureKindOf(error);
    if (kind === "not-found") return;
    if (kind === "auth") throw new Error(`cannot start: ${failureLine(kind, messageOf(error))}`);
    trouble.error(error);
  }
}
