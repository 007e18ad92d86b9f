/**
 * The `hooks:` declaration of the CLI config: parsed and validated without importing a module,
 * contacting a server or running a command. Relative paths resolve against the config file's
 * directory (never the cwd, never a checkout being worked on); every problem is collected and
 * thrown at once as a {@linkcode ProblemsError}, each naming the entry, the key and
 * `file:line:col`, with token-shaped text masked (a name, key or value quoted back may be a
 * pasted secret).
 *
 * @module
 */
import { formatProblem, ProblemsError } from "../../errors.ts";
import { POINT_NAMES, type PointName } from "../sdk/points.ts";
import type { ExecutorKind } from "../executor.ts";
import { Collector, EntryCheck, isMap, type Locate, show } from "./_check.ts";
import { commandFields, moduleFields, remoteFields } from "./_kinds.ts";

/** Deno permissions a module hook may be granted: `true` (all) or a list. Default: none. */
export interface Grants {
  net?: true | string[];
  /** Absolute paths (relative grants resolved against the config file's directory). */
  read?: true | string[];
  write?: true | string[];
  env?: true | string[];
}

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

/** Options for {@linkcode parseDeclaration}. */
export interface ParseDeclarationOptions {
  /** The config file, as errors name it. */
  file?: string;
  /** The config file's directory: relative paths resolve here. */
  baseDir: string;
  /** Line and column of a key path (`["hooks", 1, "on", 0]`), from the config loader. */
  locate?: Locate;
  /** What `~` expands to; default `$HOME`. */
  home?: string;
}

const NAME = /^[a-z][a-z0-9-]*$/;
const KIND_KEYS = { path: "module", url: "remote", command: "command" } as const;
const COMMON = ["name", "path", "url", "command", "timeoutSeconds", "on", "required", "enabled"];
const ONLY: Record<ExecutorKind, string[]> = {
  module: ["executor", "with", "permissions", "isolation", "maxMemoryMb"],
  remote: ["tokenEnv", "headers"],
  command: ["maxOutputBytes", "env"],
};
const DEFAULT_TIMEOUT: Record<ExecutorKind, number> = { module: 5, remote: 10, command: 30 };
/**
 * The longest `timeoutSeconds` allowed: an hour. A hook is waited for by the operation it
 * decides, and past 2^31-1 ms a timer fires at once, which would time every call out.
 */
export const MAX_TIMEOUT_SECONDS = 3600;
const KEY_OF: Record<ExecutorKind, string> = { module: "path", remote: "url", command: "command" };

/** Parses and validates the `hooks:` value. Throws {@linkcode ProblemsError} with every problem. */
export function parseDeclaration(value: unknown, opts: ParseDeclarationOptions): Declaration {
  const c = new Collector(opts);
  const entries: Entry[] = [];
  const home = opts.home ?? Deno.env.get("HOME");
  if (value !== undefined && value !== null && !Array.isArray(value)) {
    c.add(["hooks"], `must be a list of hook entries (got ${show(value)})`);
  }
  const seen = new Map<string, number>();
  (Array.isArray(value) ? value : []).forEach((raw, index) => {
    const at = ["hooks", index];
    if (!isMap(raw)) {
      return c.add(
        at,
        `must be a mapping with a name and one of path, url, command (got ${show(raw)})`,
      );
    }
    const named = typeof raw.name === "string" ? raw.name : undefined;
    const e = new EntryCheck(c, at, raw, named);
    const name = e.str("name", {
      pattern: NAME,
      what: "lowercase letters, digits and -, starting with a letter",
    });
    if (raw.name === undefined) e.err([], "needs a name");
    if (name !== undefined && seen.has(name)) {
      e.err(["name"], `is already used by hooks[${seen.get(name)}]; names must be unique`);
    } else if (name !== undefined) seen.set(name, index);
    const kinds = (Object.keys(KIND_KEYS) as (keyof typeof KIND_KEYS)[]).filter((k) => k in raw);
    if (kinds.length !== 1) {
      e.err(
        [],
        kinds.length === 0
          ? "needs exactly one of path (a module), url (a remote) or command (a program)"
          : `has ${kinds.join(" and ")}; exactly one of path, url or command is allowed`,
      );
    }
    const kind = kinds.length === 1 ? KIND_KEYS[kinds[0]] : undefined;
    for (const key of Object.keys(raw)) {
      if (COMMON.includes(key)) continue;
      const owner = (Object.keys(ONLY) as ExecutorKind[]).find((k) => ONLY[k].includes(key));
      if (!owner) {
        const all = [...COMMON, ...Object.values(ONLY).flat()].join(", ");
        e.err([key], `unknown key "${key}" (expected one of: ${all})`);
      } else if (kind && owner !== kind) {
        e.err(
          [key],
          `"${key}" applies to ${KEY_OF[owner]}: hooks only; this is a ${KEY_OF[kind]}: hook`,
        );
      }
    }
    const on = onList(e);
    const common = {
      name: name ?? "",
      index,
      timeoutSeconds: e.positive("timeoutSeconds", kind ? DEFAULT_TIMEOUT[kind] : 5, {
        max: MAX_TIMEOUT_SECONDS,
        unit: "seconds",
      }),
      required: e.bool("required", false),
      enabled: e.bool("enabled", true),
      ...(on ? { on } : {}),
      ...(c.where(at) ?? {}),
    };
    const r = { baseDir: opts.baseDir, home };
    if (kind === "module") {
      const f = moduleFields(e, r);
      entries.push({ ...common, kind, target: f.path, baseDir: opts.baseDir, ...f });
    } else if (kind === "remote") {
      const f = remoteFields(e);
      entries.push({ ...common, kind, target: displayUrl(f.url), ...f });
    } else if (kind === "command") {
      const f = commandFields(e, r);
      entries.push({ ...common, kind, target: f.argv.map(quoteArg).join(" "), ...f });
    }
  });
  if (c.problems.length > 0) {
    const n = c.problems.length;
    throw new ProblemsError(
      c.problems,
      `${n} problem${n === 1 ? "" : "s"} in the hooks declaration:\n` +
        c.problems.map((p) => "  " + formatProblem(p)).join("\n"),
    );
  }
  return {
    ...(opts.file !== undefined ? { file: opts.file } : {}),
    baseDir: opts.baseDir,
    entries,
  };
}

function onList(e: EntryCheck): PointName[] | undefined {
  const v = e.raw.on;
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0) {
    e.err(
      ["on"],
      `must be a non-empty list of lifecycle points (expected some of: ${
        POINT_NAMES.join(", ")
      }); leave it out for the default, or set enabled: false`,
    );
    return undefined;
  }
  const out: PointName[] = [];
  v.forEach((p, i) => {
    if (!(POINT_NAMES as readonly unknown[]).includes(p)) {
      e.err(
        ["on", i],
        `${show(p)} is not a lifecycle point (expected one of: ${POINT_NAMES.join(", ")})`,
      );
    } else if (out.includes(p)) e.err(["on", i], `"${p}" is listed twice`);
    else out.push(p);
  });
  return out.length === v.length ? out : undefined;
}

function displayUrl(href: string): string {
  try {
    const u = new URL(href);
    return `${u.origin}${u.pathname}${u.search ? "?…" : ""}`;
  } catch {
    return href;
  }
}

function quoteArg(a: string): string {
  return /^[\w@%+=:,./~-]+$/.test(a) ? a : JSON.stringify(a);
}

export { describeDeclaration, timeoutMs } from "./describe.ts";
