/**
 * Builds the dispatch stack a daemon runs from its config: the session store and control actions
 * over the registry, the runner (`process` or `tmux`, chosen at start), workspaces and harness
 * trust when enabled, the prompt templates (a template with an unknown placeholder stops the
 * start, naming it), the lifecycle engine's `run`, and the {@linkcode SessionDispatcher} over
 * them, the loops in force (the built-ins and the config's `loops:`, read strictly: a problem
 * stops the start, located) and the positions (`<state.root>/loops`). `reconfigure` takes a
 * hot-reloaded config: the policies and keywords apply at the next event, changed template files
 * are read again, and the loops are read again first (a config whose loops do not read is
 * refused whole with a warning: the previous config and loops are kept); the runner, registry and
 * workspace root need a restart.
 *
 * @module
 */
import { join } from "node:path";
import type { CliConfig, EnvReader, RoutingConfig } from "../config/mod.ts";
import { messageOf, ProblemsError } from "../errors.ts";
import type { EventSink } from "../events/mod.ts";
import { handles, redactSecrets, refuserOf, run, suspensionOf } from "../lifecycle/mod.ts";
import { every } from "../async/mod.ts";
import { suspensionsDir, SuspensionStore } from "./suspensions/mod.ts";

/** How often a daemon looks for suspensions past their hook's `suspendTimeoutMinutes`. */
const ESCALATION_CHECK_MS = 60_000;
import { ControlStore } from "../state/control.ts";
import { RegistryDir, type SessionRecord } from "../state/registry.ts";
import type { WorkItemRef } from "../state/work_item.ts";
import { SessionDispatcher } from "./dispatcher.ts";
import { DryRunDispatcher, readOnlyPositions } from "./dry_run.ts";
import { sessionEnvFor, type SessionEnvOptions } from "./agent_env.ts";
import { adapterFor, harnessSettings } from "./harness/mod.ts";
import { loadTemplates, type PromptTemplates } from "./prompts.ts";
import { harnessEnvironment, ProcessRunner, TmuxRunner } from "./runners/mod.ts";
import type { DispatchGitHub, DispatchHooks, HarnessName, HarnessRunner } from "./seams.ts";
import { hostedOf, SessionControl, SessionStore } from "./sessions/mod.ts";
import { ClaudeTrust } from "./trust/mod.ts";
import { GitWorkspaces } from "./workspace/mod.ts";
import { type LoopSet, LoopStore, parseLoops, type ParseLoopsOptions } from "../loops/mod.ts";

/** Options of {@linkcode openDispatch}. */
export interface OpenDispatchOptions {
  config: CliConfig;
  github: DispatchGitHub;
  /** The GitHub token (git gets it through its environment for HTTPS clones). */
  token: string;
  events: EventSink;
  env: EnvReader;
  warn: (message: string) => void;
  /** The working directory (where sessions run when `spawnWorkdir` is empty). */
  cwd: string;
  /** The lifecycle engine; default the process's (`run`, `refuserOf` of `lifecycle/mod.ts`). */
  hooks?: DispatchHooks;
  /**
   * A daemon: the tmux runner keeps one control-mode client for its commands, which
   * {@linkcode DispatchStack.close} ends. Default false.
   */
  daemon?: boolean;
  /**
   * The registry reader and control records to share with the router (so a process keeps one
   * listing of the registry folder); default: new ones on `registryDir`.
   */
  registry?: RegistryDir;
  controlStore?: ControlStore;
  /**
   * Where the config's keys are (`LoadedConfig.locate`) and its file: a loop problem at start is
   * then told at `file:line:col`. Default: unlocated.
   */
  locate?: ParseLoopsOptions["locate"];
  configPath?: string | null;
  /**
   * The daemon's environment the harness's is built from (only the allowlist and what
   * `routing.harnessEnv`/`agentToken` name reach the agent); default `Deno.env.toObject()`.
   */
  baseEnv?: Record<string, string>;
  /**
   * The control endpoint's part of each session's environment (`agent_env.ts`: its capability,
   * its work item, the socket, `PATH` with `binDir` first, then the PATH the harness gets);
   * none: sessions get none of it (and cannot run the verbs).
   */
  sessionEnv?: Omit<SessionEnvOptions, "basePath">;
}

/** The stack, and how to hand it a reloaded config. */
export interface DispatchStack {
  dispatcher: SessionDispatcher;
  runner: HarnessRunner;
  sessions: SessionStore;
  control: SessionControl;
  reconfigure(config: CliConfig): Promise<void>;
  /** At shutdown: lets go of what the runner keeps (the tmux control client). */
  close(): Promise<void>;
}

/** The clone URL of an item per `routing.workspace.remote` (`{host}`, `{owner}`, `{repo}`). */
export function remoteOf(template: string, item: WorkItemRef): string {
  return template.replaceAll("{host}", item.host).replaceAll("{owner}", item.owner)
    .replaceAll("{repo}", item.repo);
}

/** The PATH a harness gets from the daemon's environment (the allowlist's, or `harnessEnv`'s). */
function harnessPath(
  o: Pick<OpenDispatchOptions, "config" | "baseEnv">,
  routing: RoutingConfig,
): string | undefined {
  return harnessEnvironment({
    base: o.baseEnv ?? Deno.env.toObject(),
    harnessEnv: routing.harnessEnv,
    withhold: [o.config.webhooks.ghWebhook.secretEnv],
  }).PATH;
}

function runnerOf(
  o: Pick<OpenDispatchOptions, "config" | "env" | "warn" | "events" | "daemon" | "baseEnv">,
  routing: () => RoutingConfig,
): HarnessRunner {
  const now = routing();
  const extraArgs = (h: HarnessName) => [...(routing().harnessArgs[h] ?? [])];
  // approval, model, effort and trust as each harness's own flags (`docs/harnesses.md`)
  const settings = (h: HarnessName) => harnessSettings(routing(), h);
  // the harness's environment: the allowlist, `harnessEnv`, the agent's token when opted in
  const environment = {
    baseEnv: o.baseEnv,
    harnessEnv: now.harnessEnv,
    agentTokenEnv: now.agentToken?.env,
    // the webhook secret's variable, even one named `LC_…` (the allowlist would pass it)
    withholdEnv: [o.config.webhooks.ghWebhook.secretEnv],
  };
  if (now.runner === "tmux") {
    return new TmuxRunner({
      adapter: adapterFor,
      extraArgs,
      settings,
      ...environment,
      tmux: now.tmux,
      // a private tmux server (`tmux -L NAME`) instead of the user's default one
      socket: o.env("THE_LOOP_TMUX_SOCKET") || undefined,
      warn: o.warn,
      control: o.daemon ?? false,
      onResumeFailed: (s, failure) =>
        o.events.emit("session.resume_failed", {
          work_item: s.ref,
          harness: s.harness,
          reason: failure.reason,
          harness_session_id: failure.harnessSessionId,
        }, { level: "warning" }),
    });
  }
  return new ProcessRunner({
    adapter: adapterFor,
    extraArgs,
    settings,
    ...environment,
    logDir: join(o.config.state.root, "logs", "sessions"),
    timeoutMs: now.dispatchTimeoutSeconds * 1000,
  });
}

async function templatesOf(routing: RoutingConfig): Promise<PromptTemplates> {
  return await loadTemplates({
    eventPath: routing.promptTemplate,
    spawnPath: routing.spawnPromptTemplate,
  });
}

/**
 * The loops of `config` (the built-ins and its `loops:`, `routing.loop` naming one of them);
 * throws `ProblemsError`, located (`loopsOf` of `commands/_loops.ts` reads the same for the CLI).
 */
export function loopsOfConfig(
  config: CliConfig,
  o: Pick<OpenDispatchOptions, "locate" | "configPath"> = {},
): LoopSet {
  // a reload's config is read by the reloader's check first, then by `reconfigure`: once
  const known = READ_LOOPS.get(config);
  if (known) return known;
  const loops = parseLoops(config.loops, {
    ...(o.configPath ? { file: o.configPath } : {}),
    ...(o.locate ? { locate: o.locate } : {}),
    routingLoop: config.webhooks.ghWebhook.routing.loop,
  });
  READ_LOOPS.set(config, loops);
  return loops;
}

/** The loops each config (a loaded one is never changed) was read into. */
const READ_LOOPS = new WeakMap<CliConfig, LoopSet>();

/** The positions under `<state.root>/loops`; a corrupt file is `loop.position_corrupt`. */
function positionsOf(config: CliConfig, events: EventSink): LoopStore {
  return new LoopStore({
    dir: join(config.state.root, "loops"),
    onCorrupt: (c) =>
      events.emit("loop.position_corrupt", {
        work_item: c.ref,
        path: c.path,
        kept_as: c.keptAs,
        error: c.error,
      }, { level: "warning" }),
  });
}

/**
 * Builds the stack; throws `ProblemsError` for a template that does not parse or loops that do
 * not read.
 */
export async function openDispatch(o: OpenDispatchOptions): Promise<DispatchStack> {
  let config = o.config;
  const routing = () => config.webhooks.ghWebhook.routing;
  let loops = loopsOfConfig(config, o);
  const positions = positionsOf(config, o.events);
  const registry = o.registry ?? new RegistryDir(routing().registryDir, { warn: o.warn });
  const controlStore = o.controlStore ?? new ControlStore(routing().registryDir);
  const sessions = new SessionStore({ registry, events: o.events });
  const runner = runnerOf(o, routing);
  const control = new SessionControl({
    sessions,
    control: controlStore,
    endHarness: (record: SessionRecord) => runner.close(hostedOf(record)),
    events: o.events,
    warn: o.warn,
    positions,
    loops: () => loops,
  });
  const workspace = routing().workspace;
  const workspaces = workspace.enabled
    ? new GitWorkspaces({
      root: workspace.root,
      remoteUrl: (item) => remoteOf(routing().workspace.remote, item),
      token: () => o.token,
      events: o.events,
    })
    : undefined;
  const trust = new ClaudeTrust({
    config: routing().harnessTrust,
    workspaceRoot: workspace.enabled ? workspace.root : null,
    env: o.env,
    events: o.events,
    warn: o.warn,
  });
  let templates = await templatesOf(routing());
  const suspensions = new SuspensionStore({
    dir: suspensionsDir(config.state.root),
    onCorrupt: (c) =>
      o.events.emit("hooks.suspension_corrupt", {
        path: c.path,
        kept_as: c.keptAs,
        error: c.error,
      }, { level: "warning" }),
  });
  const dispatcher = new SessionDispatcher({
    config: routing,
    sessions,
    control,
    controlStore,
    runner,
    adapterFor,
    workspaces,
    trust: routing().harnessTrust.enabled ? trust : undefined,
    github: o.github,
    hooks: o.hooks ?? { run, refuserOf, handles, suspensionOf, redact: redactSecrets },
    suspensions,
    events: o.events,
    templates: () => templates,
    spawnWorkdir: routing().spawnWorkdir || o.cwd,
    loops: () => loops,
    positions,
    sessionEnv: o.sessionEnv &&
      sessionEnvFor({ ...o.sessionEnv, basePath: harnessPath(o, routing()) }),
  });
  // a daemon's resumed suspensions go first (queued before routing begins); the others are
  // looked at every minute, to escalate the ones past their hook's suspendTimeoutMinutes
  let stopEscalating = () => {};
  if (o.daemon) {
    await dispatcher.recover().catch((err) => o.warn(`suspensions: ${messageOf(err)}`));
    const look = () => void dispatcher.escalate().catch(() => {});
    look();
    stopEscalating = every(look, ESCALATION_CHECK_MS, { persistent: false });
  }
  return {
    dispatcher,
    runner,
    sessions,
    control,
    close: async () => {
      stopEscalating();
      await runner.dispose?.();
    },
    async reconfigure(next: CliConfig): Promise<void> {
      // the loops first: a config whose loops do not read is not adopted at all (its
      // `routing.loop` may name a loop the kept set lacks). The daemons' reloader refuses such an
      // edit before it gets here, located; this is the fallback for a caller without it.
      let nextLoops: LoopSet;
      try {
        nextLoops = loopsOfConfig(next, { configPath: o.configPath });
      } catch (error) {
        const what = error instanceof ProblemsError ? error.message : messageOf(error);
        o.warn(
          `the new loops were refused, keeping the previous ones (and the whole previous config): ` +
            what,
        );
        return;
      }
      const before = routing();
      config = next;
      loops = nextLoops;
      const after = routing();
      if (
        before.promptTemplate === after.promptTemplate &&
        before.spawnPromptTemplate === after.spawnPromptTemplate
      ) return;
      try {
        templates = await templatesOf(after);
      } catch (error) {
        const what = error instanceof ProblemsError ? error.message : messageOf(error);
        o.warn(`the new prompt templates were refused, keeping the previous ones: ${what}`);
      }
    },
  };
}

/** Options of {@linkcode openDryRun}. */
export type OpenDryRunOptions = Omit<OpenDispatchOptions, "github" | "token">;

/**
 * The dispatcher `poll start --dry-run` runs: it decides as the daemon would, asks the hooks,
 * renders the prompts after they had their say, and does nothing (see `DryRunDispatcher`).
 */
export async function openDryRun(o: OpenDryRunOptions): Promise<DryRunDispatcher> {
  const routing = () => o.config.webhooks.ghWebhook.routing;
  const registry = new RegistryDir(routing().registryDir, { warn: o.warn });
  const sessions = new SessionStore({ registry, events: o.events });
  const templates = await templatesOf(routing());
  const loops = loopsOfConfig(o.config, o);
  return new DryRunDispatcher({
    loops: () => loops,
    positions: readOnlyPositions(join(o.config.state.root, "loops")),
    config: routing,
    sessions,
    controlStore: new ControlStore(routing().registryDir),
    runner: runnerOf(o, routing),
    adapterFor,
    hooks: o.hooks ?? { run, refuserOf, handles },
    events: o.events,
    templates,
    spawnWorkdir: routing().spawnWorkdir || o.cwd,
  });
}
