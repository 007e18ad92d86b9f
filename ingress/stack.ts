/**
 * The one routing stack both daemons run: the GitHub client (with its persistent ETag cache), the
 * session registry and control records, the dispatcher (agent sessions — `dispatch/open.ts` —
 * or, with `routing.dispatcher: journal`, the watch-only journal) and the router over them,
 * re-configured from the config on hot reload. `poll start` and `gh-webhook start` build it the
 * same way, so the same scenario leaves the same events whichever way it arrives.
 *
 * With the sessions dispatcher, the lifecycle hooks are configured strictly first: a daemon whose
 * hooks declaration does not load does not start (the error names the hook).
 *
 * @module
 */
import { join } from "node:path";
import { settlesWithin } from "../async/mod.ts";
import type { CliConfig, EnvReader, LoadedConfig, RoutingConfig } from "../config/mod.ts";
import {
  type Dispatcher,
  type DispatchStack,
  JOURNAL_FILE,
  JournalDispatcher,
  openDispatch,
  type OpenDispatchOptions,
} from "../dispatch/mod.ts";
import type { EventSink } from "../events/mod.ts";
import { ghProgramWarnings, GitHubClient } from "../github/mod.ts";
import { configureFromConfig } from "../lifecycle/mod.ts";
import { ControlStore } from "../state/control.ts";
import { RegistryDir } from "../state/registry.ts";
import { policyFromConfig, policyWarnings } from "./policy.ts";
import { Router } from "./router.ts";

/** Options of {@linkcode openIngress}. */
export interface IngressOptions {
  /** The config as loaded (the hooks declaration is read from it). */
  loaded: LoadedConfig;
  token: string;
  events: EventSink;
  env: EnvReader;
  /** The working directory (sessions run there when `spawnWorkdir` is empty). */
  cwd: string;
  /**
   * Told each policy warning (at start, and when a reload changes them; each is also a
   * `routing.policy_warning` event) and each registry file skipped.
   */
  warn(message: string): void;
  /** Aborted at shutdown: GitHub waits (a rate limit) end at once. */
  signal?: AbortSignal;
  /** Stands in for the configured dispatcher (`poll start --dry-run` records instead). */
  dispatcher?: Dispatcher;
  /** Keep the ETag cache in memory only (no file under the state root). Default false. */
  ephemeral?: boolean;
  /** Each session's environment for the verbs (`openDispatch`'s `sessionEnv`); none: none. */
  sessionEnv?: OpenDispatchOptions["sessionEnv"];
}

/** The stack, and how to hand it a reloaded config. */
export interface Ingress {
  github: GitHubClient;
  registry: RegistryDir;
  control: ControlStore;
  router: Router;
  dispatcher: Dispatcher;
  /** The config in force. */
  readonly config: CliConfig;
  /** The control settings in force (keywords, requireStartCommand). */
  controlConfig(): RoutingConfig["control"];
  /** Takes a reloaded config: the next event uses its policy; new warnings are told once. */
  reconfigure(config: CliConfig): void;
  /**
   * At shutdown: waits (at most `timeoutMs`, default 5 s) for reactions still being sent, then
   * lets go of the runner's tmux control client.
   */
  drain(timeoutMs?: number): Promise<void>;
}

/** The warnings a config's routing policy (and its legacy `ghBinary` keys) deserve. */
export function routingWarnings(config: CliConfig): string[] {
  return [...policyWarnings(policyFromConfig(config)), ...ghProgramWarnings(config)];
}

/** Builds the stack from a config. */
export async function openIngress(o: IngressOptions): Promise<Ingress> {
  let config = o.loaded.config;
  const routing = config.webhooks.ghWebhook.routing;
  const clientOptions = {
    apiUrl: config.github.apiUrl,
    token: o.token,
    events: o.events,
    signal: o.signal,
  };
  const github = o.ephemeral
    ? new GitHubClient(clientOptions)
    : await GitHubClient.open({ ...clientOptions, stateRoot: config.state.root });
  // a daemon makes the registry folder up front: asking a folder that is not there is an error
  // per question (a costly one, under a webhook burst), asking an empty one is not
  if (!o.ephemeral) await Deno.mkdir(routing.registryDir, { recursive: true });
  const registry = new RegistryDir(routing.registryDir, { warn: o.warn });
  const control = new ControlStore(routing.registryDir);
  const controlConfig = () => config.webhooks.ghWebhook.routing.control;
  let dispatch: DispatchStack | undefined;
  let dispatcher = o.dispatcher;
  if (!dispatcher && routing.dispatcher === "journal") {
    dispatcher = new JournalDispatcher({
      path: join(config.state.root, JOURNAL_FILE),
      control,
      controlConfig,
    });
  }
  if (!dispatcher || o.dispatcher) {
    // the hooks are asked for real (the dry run too: it shows what they would decide)
    await configureFromConfig(o.loaded, {
      strict: true,
      sink: o.events,
      env: o.env,
      warn: o.warn,
      persistCircuits: !o.ephemeral,
    });
  }
  if (!dispatcher) {
    dispatch = await openDispatch({
      config,
      github,
      token: o.token,
      events: o.events,
      env: o.env,
      warn: o.warn,
      cwd: o.cwd,
      daemon: !o.ephemeral,
      registry,
      controlStore: control,
      locate: o.loaded.locate,
      configPath: o.loaded.path,
      sessionEnv: o.sessionEnv,
    });
    dispatcher = dispatch.dispatcher;
  }
  const router = new Router({
    dispatcher,
    sessions: registry,
    github,
    events: o.events,
    policy: policyFromConfig(config),
    dedupCacheSize: routing.dedupCacheSize,
  });
  const tell = (warnings: string[]) => {
    for (const message of warnings) {
      o.warn(message);
      o.events.emit("routing.policy_warning", { message });
    }
  };
  let warned = routingWarnings(config);
  tell(warned);
  return {
    github,
    registry,
    control,
    router,
    dispatcher,
    get config() {
      return config;
    },
    controlConfig,
    async drain(timeoutMs = 5_000): Promise<void> {
      if (!dispatch) return;
      await settlesWithin(dispatch.dispatcher.idle(), timeoutMs);
      await dispatch.close();
    },
    reconfigure(next: CliConfig): void {
      if (next === config) return;
      config = next;
      router.setPolicy(policyFromConfig(next));
      void dispatch?.reconfigure(next);
      const now = routingWarnings(next);
      tell(now.filter((w) => !warned.includes(w)));
      warned = now;
    },
  };
}
