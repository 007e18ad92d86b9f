/**
 * The resolved CLI config's type: every key of `schema/cli-config.schema.json`, with defaults
 * filled and every path absolute. The schema is the source of truth; this mirrors it.
 *
 * @module
 */
import type { Budgets } from "../state/usage.ts";

/**
 * The harnesses the-loop drives, in the order the docs list them: the one list (`HarnessName`
 * and `HARNESS_NAMES` of `dispatch/seams.ts` are these; a command's flag choices read it here,
 * without loading the dispatcher).
 */
export const HARNESS_KEYS = ["claude", "cursor", "codex", "gemini", "opencode"] as const;

/** One of {@linkcode HARNESS_KEYS}. */
export type HarnessKey = typeof HARNESS_KEYS[number];

/** Reads one environment variable: its value, or `undefined` when it is not set. */
export type EnvReader = (name: string) => string | undefined;

/** A sandbox grant: `true` for everything, or exactly the listed entries. */
export type Grant = true | string[];

/**
 * Deno permissions a module hook may be granted: `true` (all) or a list. Default: none. As
 * written in the config, `read`/`write` paths may be relative; the hooks declaration resolves
 * them against the config file's directory.
 */
export interface Grants {
  net?: Grant;
  read?: Grant;
  write?: Grant;
  env?: Grant;
}

/** One declared lifecycle hook, as written (hook entries are not default-filled here). */
export interface HookEntry {
  name: string;
  path?: string;
  url?: string;
  command?: string[];
  executor?: string;
  with?: Record<string, unknown>;
  permissions?: Grants;
  on?: string[];
  /** `true` is `onError: block`; not together with `onError`. */
  required?: boolean;
  /** What the hook's failure does at a point that can refuse (default `warn`). */
  onError?: "warn" | "block" | "suspend";
  /** With `onError: suspend`: how the parked operation goes on (default `wait_for_resume`). */
  suspendMode?: "wait_for_resume" | "retry_backoff" | "wait_then_retry";
  /** With `suspendMode: retry_backoff`: the waits before each retry, in ms (default 100, 200, 400). */
  retryBackoffMs?: number[];
  /** With `onError: suspend`: minutes after which a parked operation is escalated. */
  suspendTimeoutMinutes?: number;
  timeoutSeconds?: number;
  isolation?: "worker" | "process";
  maxMemoryMb?: number;
  tokenEnv?: string;
  headers?: Record<string, string>;
  maxOutputBytes?: number;
  enabled?: boolean;
  env?: string[];
}

/** GitHub reaction palette names, or `""` to skip a state. */
export type Reaction =
  | ""
  | "+1"
  | "-1"
  | "laugh"
  | "confused"
  | "heart"
  | "hooray"
  | "rocket"
  | "eyes";

/** A CI result as `routing.deliver.ci` names it. */
export type CiDelivery = "failed" | "recovered" | "succeeded" | "pending";

/** `routing.deliver`: per GitHub event, the actions delivered into a live session. */
export interface DeliverConfig {
  issues: string[];
  pull_request: string[];
  pull_request_review: string[];
  pull_request_review_comment: string[];
  issue_comment: string[];
  ci: CiDelivery[];
  /** Which `labeled`/`unlabeled` actions count: the auto-execute label's only, or any. */
  labels: "auto-execute" | "any";
}

/** `routing.budgets`: each optional; `0` turns one off (the shape `state/usage.ts` counts against). */
export type BudgetsConfig = Budgets;

/** `ui`: the status page both daemons serve (`docs/ui.md`). */
export interface UiConfig {
  enabled: boolean;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A host that is not loopback is allowed (with the token of `tokenEnv`). */
  exposed: boolean;
  /** The NAME of the variable holding the exposed page's token. */
  tokenEnv: string;
  terminal: "off" | "read-only" | "interactive";
}

/** `webhooks.ghWebhook.routing`. */
export interface RoutingConfig {
  enabled: boolean;
  dispatcher: "sessions" | "journal";
  registryDir: string;
  defaultHarness: HarnessKey;
  /** How much the agent may do unattended, mapped per harness (`docs/harnesses.md`). */
  approvalMode: "ask" | "auto-edit" | "auto-all";
  /** Per harness: its model and effort. */
  harnessModels: Record<HarnessKey, { model?: string; effort?: string }>;
  spawnOnUnmatched: "never" | "always" | "labeled";
  autoExecuteLabel: string;
  control: {
    enabled: boolean;
    requireStartCommand: boolean;
    keywords: { start: string; stop: string; pause: string; resume: string };
    /**
     * A gate's outcome → its keyword (an outcome not listed answers to `the-loop:<outcome>`).
     * Always filled from the config; optional so a control built by hand (a test's) stays valid.
     */
    gateKeywords?: Record<string, string>;
    ghBinary: string;
  };
  /** The loop a work item walks unless it picks one (default `adhoc`). */
  loop: string;
  authorizedUsers: string[];
  /** Bot logins (`name[bot]`) acted on; a bot is never authorized through `authorizedUsers`. */
  authorizedBots: string[];
  /** Which item actions reach a live session; the rest are settled `quiet-action`. */
  deliver: DeliverConfig;
  /** What one work item may spend before it is paused (`0` or absent: no limit). */
  budgets: BudgetsConfig;
  /** One author's comments into one item past `maxPerWindow` in `windowMinutes` pause it. */
  loopGuard: { maxPerWindow: number; windowMinutes: number };
  /** Absolute path, or `""` for the daemon's own working directory. */
  spawnWorkdir: string;
  runner: "process" | "tmux";
  tmux: {
    keepSessionOnClose: boolean;
    remainOnExit: boolean;
    resumeOnRespawn: boolean;
    resumeProbeSeconds: number;
    killHarnessOnClose: boolean;
    harnessKillGraceSeconds: number;
  };
  webTerminal: { enabled: boolean; host: string; port: number };
  maxConcurrentDispatches: number;
  dedupCacheSize: number;
  dispatchTimeoutSeconds: number;
  /** Absolute path, or `""` for the built-in template. */
  promptTemplate: string;
  /** Absolute path, or `""` for the built-in template. */
  spawnPromptTemplate: string;
  harnessArgs: Record<HarnessKey, string[]>;
  /** Beyond the allowlist: names passed through from the daemon's environment, and values. */
  harnessEnv: { pass: string[]; set: Record<string, string> };
  /** The variable whose value the agent gets as `GH_TOKEN`; absent: no token. */
  agentToken?: { env: string };
  harnessTrust: {
    enabled: boolean;
    scope: "workspace-root" | "directory";
    acceptBypassPermissions: "auto" | "always" | "never";
  };
  reactions: {
    enabled: boolean;
    started: Reaction;
    completed: Reaction;
    error: Reaction;
    ghBinary: string;
  };
  announce: { enabled: boolean; ghBinary: string };
  workspace: { enabled: boolean; root: string; remote: string; cleanupOnClose: boolean };
}

/** One `polling.sources[]` entry. */
export interface PollSource {
  provider: "github";
  repos: string[];
  monitor: { issues: boolean; pullRequests: boolean };
  label: string;
  ghBinary: string;
}

/** What every notification channel has, whatever its type. */
export interface ChannelBase {
  /** Unique across all collaborators; default `<handle without @>-<type>`. */
  name: string;
  enabled: boolean;
  /** One send's time budget (default 5). */
  timeoutSeconds: number;
}

/** A `type: slack` channel: a POST of `{text}` to an incoming webhook. */
export interface SlackChannel extends ChannelBase {
  type: "slack";
  /** The variable holding the incoming-webhook URL (default `THE_LOOP_SLACK_WEBHOOK_URL`). */
  urlEnv: string;
  /** The seed's shape, kept: the-loop posts to the incoming webhook whatever it says. */
  via: "mcp" | "cli" | "api";
  /** One POST per listed channel (with `channel` set); empty: one POST. */
  config: { "channel-list": string[] };
}

/** A `type: webhook` channel: the envelope POSTed as JSON, signed when `secretEnv` is set. */
export interface WebhookChannel extends ChannelBase {
  type: "webhook";
  url: string;
  /** The variable holding the signing secret; absent: no signature header. */
  secretEnv?: string;
}

/** A `type: command` channel: an argv run with the envelope as JSON on stdin, no shell. */
export interface CommandChannel extends ChannelBase {
  type: "command";
  command: string[];
  /** Variables passed through from the daemon's environment (beyond PATH, HOME, THE_LOOP_*). */
  env: string[];
  /**
   * Where it runs: the config file's directory (filled, not written; a `./` or `../` program
   * path is resolved against it too, as a command hook's is).
   */
  cwd?: string;
}

/** One `collaborators[].notifications.channels[]` entry, by its `type`. */
export type Channel = SlackChannel | WebhookChannel | CommandChannel;

/** A channel's type. */
export type ChannelType = Channel["type"];

/** The daemon events a notification can be routed for (`notifications.events` keys). */
export type NotificationEventName =
  | "work-item-spawned"
  | "dispatch-failed"
  | "session-died"
  | "event-dropped-unauthorized"
  | "phase-changed"
  | "question-asked"
  | "gate-waiting"
  | "hook-suspended"
  | "suspension-escalated";

/** One `collaborators[]` entry. */
export interface Collaborator {
  handle: string;
  kind: "individual" | "group";
  roles: string[];
  notifications: {
    enabled: boolean;
    channels: Channel[];
  };
}

/** `notifications`: the master switch, and the roles each event notifies. */
export interface NotificationsConfig {
  enabled: boolean;
  events: Record<NotificationEventName, string[]>;
}

/** The resolved CLI config: defaults filled, every path absolute. */
export interface CliConfig {
  version: string;
  state: { root: string };
  github: { apiUrl: string; tokenEnv: string };
  webhooks: {
    ghWebhook: {
      host: string;
      port: number;
      path: string;
      secretEnv: string;
      pidfile: string;
      /** The most connections open at once (1,024). */
      maxConnections: number;
      /** How long a connection may take to send its headers (10 s). */
      headersTimeoutSeconds: number;
      events: string[];
      /** The durable webhook inbox (`<state.root>/webhook-inbox/`). */
      inbox: { enabled: boolean; maxBytes: number };
      routing: RoutingConfig;
    };
  };
  polling: {
    intervalSeconds: number;
    /** Attempts a failing delivery gets before the poller gives up (≥ 1). */
    maxRetries: number;
    stateFile: string;
    pidfile: string;
    sources: PollSource[];
  };
  eventLog: { enabled: boolean; path: string };
  /** The status page (`docs/ui.md`). */
  ui: UiConfig;
  hooks: HookEntry[];
  /** The `loops:` as written (read strictly by `parseLoops` of `loops/mod.ts`). */
  loops: Record<string, unknown>;
  collaborators: Collaborator[];
  notifications: NotificationsConfig;
}
