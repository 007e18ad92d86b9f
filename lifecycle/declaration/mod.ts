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
import { didYouMean, formatKeyPath, isMapping } from "../../config/mod.ts";
import { plural, ProblemsError, problemsSummary } from "../../errors.ts";
import { POINT_NAMES, type PointName } from "../sdk/points.ts";
import type { ExecutorKind } from "../executor.ts";
import { Collector, EntryCheck, type Locate, show } from "./_check.ts";
import { policyFields } from "./_policy.ts";
import { commandFields, moduleFields, remoteFields, type Resolve } from "./_kinds.ts";
import type { Declaration, Entry, EntryBase } from "./entry.ts";

export type {
  CommandEntry,
  Declaration,
  Entry,
  EntryBase,
  Grants,
  ModuleEntry,
  OnError,
  RemoteEntry,
  SuspendMode,
} from "./entry.ts";
export { DEFAULT_RETRY_BACKOFF_MS } from "./entry.ts";

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
const COMMON = [
  "name",
  "path",
  "url",
  "command",
  "timeoutSeconds",
  "on",
  "required",
  "onError",
  "suspendMode",
  "retryBackoffMs",
  "suspendTimeoutMinutes",
  "enabled",
];
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
  if (value !== undefined && value !== null && !Array.isArray(value)) {
    c.add(["hooks"], `must be a list of hook entries (got ${show(value)})`);
  }
  const r: Resolve = { baseDir: opts.baseDir, home: opts.home ?? Deno.env.get("HOME") };
  const names = new Map<string, number>();
  const entries = (Array.isArray(value) ? value : []).flatMap((raw, index) => {
    const entry = parseEntry(c, raw, index, { names, resolve: r });
    return entry ? [entry] : [];
  });
  if (c.problems.length > 0) {
    const n = plural(c.problems.length, "problem");
    throw new ProblemsError(
      c.problems,
      problemsSummary(c.problems, `${n} in the hooks declaration`),
    );
  }
  return {
    ...(opts.file !== undefined ? { file: opts.file } : {}),
    baseDir: opts.baseDir,
    entries,
  };
}

/** What checking one entry needs besides the entry: the names taken so far, how paths resolve. */
interface EntryScope {
  /** Each name declared so far → its index in `hooks:`. */
  names: Map<string, number>;
  resolve: Resolve;
}

/** Checks `hooks[index]`; the entry when its kind is known (problems go to `c`). */
function parseEntry(c: Collector, raw: unknown, index: number, scope: EntryScope) {
  const at = ["hooks", index];
  if (!isMapping(raw)) {
    c.add(at, `must be a mapping with a name and one of path, url, command (got ${show(raw)})`);
    return undefined;
  }
  const e = new EntryCheck(c, at, raw, typeof raw.name === "string" ? raw.name : undefined);
  const name = entryName(e, index, scope.names);
  const kind = entryKind(e);
  checkKeys(e, kind);
  const on = onList(e);
  const common = {
    name: name ?? "",
    index,
    timeoutSeconds: e.positive("timeoutSeconds", kind ? DEFAULT_TIMEOUT[kind] : 5, {
      max: MAX_TIMEOUT_SECONDS,
      unit: "seconds",
    }),
    ...policyFields(e),
    enabled: e.bool("enabled", true),
    ...(on ? { on } : {}),
    ...(c.where(at) ?? {}),
  };
  return kind ? withKindFields(e, kind, common, scope.resolve) : undefined;
}

/** The entry's `name`: required, well-formed and not taken by an earlier entry. */
function entryName(e: EntryCheck, index: number, names: Map<string, number>): string | undefined {
  const name = e.str("name", {
    pattern: NAME,
    what: "lowercase letters, digits and -, starting with a letter",
  });
  if (e.raw.name === undefined) e.err([], "needs a name");
  if (name === undefined) return undefined;
  const taken = names.get(name);
  if (taken !== undefined) {
    e.err(["name"], `is already used by ${formatKeyPath(["hooks", taken])}; names must be unique`);
  } else names.set(name, index);
  return name;
}

/** The entry's kind: which one of `path`, `url` and `command` it has (none or several: a problem). */
function entryKind(e: EntryCheck): ExecutorKind | undefined {
  const kinds = (Object.keys(KIND_KEYS) as (keyof typeof KIND_KEYS)[]).filter((k) => k in e.raw);
  if (kinds.length === 1) return KIND_KEYS[kinds[0]];
  e.err(
    [],
    kinds.length === 0
      ? "needs exactly one of path (a module), url (a remote) or command (a program)"
      : `has ${kinds.join(" and ")}; exactly one of path, url or command is allowed`,
  );
  return undefined;
}

/** Every key is known, and a kind's own keys appear only on entries of that kind. */
function checkKeys(e: EntryCheck, kind: ExecutorKind | undefined): void {
  for (const key of Object.keys(e.raw)) {
    if (COMMON.includes(key)) continue;
    const owner = (Object.keys(ONLY) as ExecutorKind[]).find((k) => ONLY[k].includes(key));
    if (!owner) {
      const known = [...COMMON, ...Object.values(ONLY).flat()];
      const guess = didYouMean(key, known);
      e.err(
        [key],
        `unknown key "${key}" (${guess ? `did you mean "${guess}"? ` : ""}expected one of: ` +
          `${known.join(", ")})`,
      );
    } else if (kind && owner !== kind) {
      e.err(
        [key],
        `"${key}" applies to ${KEY_OF[owner]}: hooks only; this is a ${KEY_OF[kind]}: hook`,
      );
    }
  }
}

/** The entry: the fields every kind has, and its kind's own. */
function withKindFields(
  e: EntryCheck,
  kind: ExecutorKind,
  common: Omit<EntryBase, "kind" | "target">,
  r: Resolve,
): Entry {
  switch (kind) {
    case "module": {
      const f = moduleFields(e, r);
      return { ...common, kind, target: f.path, baseDir: r.baseDir, ...f };
    }
    case "remote": {
      const f = remoteFields(e);
      return { ...common, kind, target: displayUrl(f.url), ...f };
    }
    case "command": {
      const f = commandFields(e, r);
      return { ...common, kind, target: f.argv.map(quoteArg).join(" "), ...f };
    }
  }
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
