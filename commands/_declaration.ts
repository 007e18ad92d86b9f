/**
 * Reads the `hooks:` declaration the way every `the-loop hooks` command does: the CLI config
 * loaded as usual, then `parseDeclaration` over its `hooks` (strict: every problem, located).
 * Also the problems `config validate` adds for `hooks:`, even when the schema check failed (the
 * file read again: {@linkcode rereadConfig}, which `_loops.ts` shares).
 *
 * Nothing here imports a hook, contacts a server or runs a program.
 *
 * @module
 */
import { dirname } from "node:path";
import type { KeyPath, LoadedConfig, Position } from "../config/mod.ts";
import { type Problem, ProblemsError } from "../errors.ts";
import { type Declaration, parseDeclaration } from "../lifecycle/mod.ts";
import { loadCliConfig } from "./_config.ts";
import type { CliContext } from "./context.ts";

/** The loaded config and its parsed declaration. */
export interface ReadDeclaration {
  loaded: LoadedConfig;
  decl: Declaration;
}

/** Parses the declaration of an already loaded config. Throws `ProblemsError`. */
export function declarationOf(loaded: LoadedConfig, ctx: CliContext): Declaration {
  return parseDeclaration(loaded.config.hooks, {
    ...(loaded.path ? { file: loaded.path } : {}),
    baseDir: loaded.baseDir,
    locate: (k) => loaded.locate(k),
    home: ctx.env("HOME"),
  });
}

/** Loads the CLI config and parses its `hooks:`. Throws `ProblemsError` with every problem. */
export async function readDeclaration(ctx: CliContext): Promise<ReadDeclaration> {
  const loaded = await loadCliConfig(ctx);
  return { loaded, decl: declarationOf(loaded, ctx) };
}

/** The problems a strict reader (`parse`) throws; none when it parses. */
export function problemsOf(parse: () => unknown): Problem[] {
  try {
    parse();
    return [];
  } catch (err) {
    if (err instanceof ProblemsError) return err.problems;
    throw err;
  }
}

/**
 * The declaration problems to report beside the config's own: from the loaded config when it
 * loaded, else (the schema check failed) from the file read again, so both kinds of problem are
 * listed together. Problems at a key path the schema already reported are left out.
 */
export async function hooksProblems(
  ctx: CliContext,
  loaded: LoadedConfig | undefined,
  schemaProblems: Problem[],
): Promise<Problem[]> {
  if (loaded) return problemsOf(() => declarationOf(loaded, ctx));
  const raw = await rereadConfig(schemaProblems);
  if (!raw) return [];
  const reported = new Set(schemaProblems.map((p) => p.path));
  return problemsOf(() =>
    parseDeclaration(raw.data.hooks, {
      file: raw.file,
      baseDir: dirname(raw.file),
      locate: raw.locate,
      home: ctx.env("HOME"),
    })
  ).filter((p) => !reported.has(p.path));
}

/** A config file read again as plain data, for the checks the schema's failure kept from running. */
export interface RereadConfig {
  file: string;
  data: Record<string, unknown>;
  locate: (keyPath: KeyPath) => Position | undefined;
}

/**
 * The config file the schema check failed on, read again the way the loader reads it (same
 * parser, same positions); undefined when nothing more can be read from it (a YAML syntax error,
 * an unreadable file, a top level that is no mapping).
 */
export async function rereadConfig(schemaProblems: Problem[]): Promise<RereadConfig | undefined> {
  const file = schemaProblems.find((p) => p.file)?.file;
  if (
    !file ||
    schemaProblems.some((p) => (p.file && p.line === undefined) || /^YAML/.test(p.message))
  ) return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return undefined;
  }
  const { parseYaml } = await import("../config/mod.ts");
  const parsed = parseYaml(text, file);
  const data = parsed.data as Record<string, unknown> | null | undefined;
  if (parsed.problems.length > 0 || typeof data !== "object" || !data || Array.isArray(data)) {
    return undefined;
  }
  return { file, data, locate: parsed.locate };
}
