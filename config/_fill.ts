/**
 * Fills a validated config from the schema's `default`s and makes every path absolute.
 * Schema conventions it reads: a default starting `<state.root>` is placed under the resolved
 * state root; `x-default-env` names a variable whose value, when set, replaces the default (an
 * integer key's read as a number);
 * `x-path` marks a path resolved against the config file's directory; `x-fill-defaults: false`
 * on array items leaves those entries as written (hooks: their defaults depend on their kind).
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { isMapping, type SchemaNode } from "./describe.ts";
import { absolutePath } from "./resolve.ts";
import type { EnvReader } from "./types.ts";

/** Inputs to {@linkcode fillConfig}. */
export interface FillOptions {
  /** Directory relative paths resolve against: the file's directory, or cwd without a file. */
  baseDir: string;
  /** The config file, or `null` when there is none. */
  file: string | null;
  /** The working directory. */
  cwd: string;
  env: EnvReader;
}

const ROOT_MARK = "<state.root>";

/** A variable's text as the value of key `s`: a whole number for an integer key, else the text. */
export function envValue(s: SchemaNode, raw: string): unknown {
  return s.type === "integer" && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
}

/** The state root used when `state.root` is not set (see the schema's `state.root`). */
function defaultStateRoot(file: string | null, cwd: string): string {
  if (file === null) return join(cwd, ".the-loop");
  const dir = dirname(file);
  return basename(dir) === ".the-loop" ? dir : join(dir, ".the-loop");
}

type Obj = Record<string, unknown>;

/** Returns a filled, path-resolved copy of `data` (which must already be valid). */
export function fillConfig(schema: SchemaNode, data: unknown, opts: FillOptions): Obj {
  const config: Obj = isMapping(data) ? structuredClone(data) : {};
  const state = isMapping(config.state) ? config.state : (config.state = {});
  state.root = typeof state.root === "string"
    ? absolutePath(state.root, opts.baseDir, opts.env)
    : defaultStateRoot(opts.file, opts.cwd);
  const root = state.root as string;

  const defaultOf = (s: SchemaNode): unknown => {
    const raw = s["x-default-env"] ? opts.env(s["x-default-env"]) : undefined;
    if (raw) return envValue(s, raw); // checked by the validation before (envDefaultProblems)
    if (typeof s.default === "string" && s.default.startsWith(ROOT_MARK)) {
      return join(root, s.default.slice(ROOT_MARK.length));
    }
    return structuredClone(s.default);
  };

  const fill = (s: SchemaNode, value: unknown): unknown => {
    if (isMapping(value) && s.properties) {
      const out: Obj = {}; // in the schema's key order, so `config show` reads like the docs
      for (const [key, sub] of Object.entries(s.properties as Record<string, SchemaNode>)) {
        if (key in value) out[key] = fill(sub, value[key]);
        else if (sub.default !== undefined) out[key] = fill(sub, defaultOf(sub));
      }
      return out;
    } else if (Array.isArray(value) && s.items && s.items["x-fill-defaults"] !== false) {
      return value.map((item) => fill(s.items, item));
    } else if (s["x-path"] && typeof value === "string" && value !== "") {
      return absolutePath(value, opts.baseDir, opts.env);
    }
    return value;
  };
  return fill(schema, config) as Obj;
}
