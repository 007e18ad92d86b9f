/**
 * The parsed shapes of the `hooks:` declaration: one {@linkcode Entry} per declared hook and
 * the {@linkcode Declaration} that lists them. Apart from the parser (`mod.ts`) so that the
 * files the parser imports (`_kinds.ts`, `describe.ts`) read these types without importing it.
 *
 * @module
 */
import type { Grants } from "../../config/mod.ts";
import type { PointName } from "../sdk/points.ts";
import type { ExecutorKind } from "../executor.ts";

/**
 * Deno permissions a module hook may be granted: `true` (all) or a list. Default: none. In a
 * parsed {@linkcode ModuleEntry}, `read` and `write` paths are absolute (relative grants
 * resolved against the config file's directory, `~` against HOME).
 */
export type { Grants };

/** What a hook's failure does: a warning, a refusal, or a parked operation. */
export type OnError = "warn" | "block" | "suspend";

/** How an operation parked by a `suspend` hook's failure goes on. */
export type SuspendMode = "wait_for_resume" | "retry_backoff" | "wait_then_retry";

/** The waits before each retry of `retry_backoff`, in milliseconds, when none are given. */
export const DEFAULT_RETRY_BACKOFF_MS: readonly number[] = [100, 200, 400];

/** What every entry has. */
export interface EntryBase {
  name: string;
  kind: ExecutorKind;
  /** One line for people: the module's path, the URL (query hidden) or the argv. */
  target: string;
  /** Seconds a call may take, at most 3600 (defaults: module 5, remote 10, command 30). */
  timeoutSeconds: number;
  /** The points it is called at; undefined: the executor's default (a module: its methods). */
  on?: PointName[];
  /**
   * What its failure at a point with a `proceed` decision does: `warn` (the chain goes on),
   * `block` (the operation is refused) or `suspend` (the operation parks); elsewhere a failure
   * is only a warning. `required: true` in the config is `block`.
   */
  onError: OnError;
  /** `onError === "block"`: its failure at a point with a `proceed` decision refuses it. */
  required: boolean;
  /** With `onError: suspend` only: how the park ends (default `wait_for_resume`). */
  suspendMode?: SuspendMode;
  /** With `suspendMode: retry_backoff` only: the waits before each retry, in ms. */
  retryBackoffMs?: number[];
  /** With `onError: suspend` only: minutes after which a park is escalated (a notification). */
  suspendTimeoutMinutes?: number;
  enabled: boolean;
  /** Its index in `hooks:`. */
  index: number;
  line?: number;
  col?: number;
}

/** A `path:` hook: a local module run in a sandboxed worker or child process. */
export interface ModuleEntry extends EntryBase {
  kind: "module";
  /** Absolute path of the module. */
  path: string;
  /** The config file's directory. */
  baseDir: string;
  exportName?: string;
  options?: Record<string, unknown>;
  permissions: Grants;
  isolation: "worker" | "process";
  maxMemoryMb: number;
}

/** A `url:` hook: a JSON-RPC endpoint. */
export interface RemoteEntry extends EntryBase {
  kind: "remote";
  url: string;
  /** The NAME of the variable holding the bearer token. */
  tokenEnv?: string;
  headers: Record<string, string>;
}

/** A `command:` hook: an external program, argv only, run in the config file's directory. */
export interface CommandEntry extends EntryBase {
  kind: "command";
  argv: string[];
  cwd: string;
  /** Names of variables passed through to the command. */
  env: string[];
  maxOutputBytes: number;
}

/** One declared hook. */
export type Entry = ModuleEntry | RemoteEntry | CommandEntry;

/** The parsed `hooks:` list, in declaration order. */
export interface Declaration {
  file?: string;
  baseDir: string;
  entries: Entry[];
}
