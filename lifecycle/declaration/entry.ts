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
  /** Its failure at a point with a `proceed` decision refuses the operation. */
  required: boolean;
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
