/**
 * Reads the `hooks:` declaration the way every `the-loop hooks` command does: the CLI config
 * loaded as usual, then `parseDeclaration` over its `hooks` (strict: every problem, located).
 * Also the problems `config validate` adds for `hooks:`, even when the schema check failed.
 *
 * Nothing here imports a hook, contacts a server or runs a program.
 *
 * @module
 */
import { dirname } from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
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

/** The problems `parseDeclaration` finds in `hooks` (none when it parses). */
function problemsOf(parse: () => unknown): Problem[] {
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
  const file = schemaProblems.find((p) => p.file)?.file;
  // a YAML syntax error or an unreadable file: nothing more can be read from it
  if (
    !file ||
    schemaProblems.some((p) => (p.file && p.line === undefined) || /^YAML/.test(p.message))
  ) return [];
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return [];
  }
  // read the way the loader reads it (same parser, same positions)
  const { parseYaml } = await import("../config/mod.ts");
  const parsed = parseYaml(text, file);
  const data = parsed.data as Record<string, unknown> | null | undefined;
  if (parsed.problems.length > 0 || typeof data !== "object" || !data || Array.isArray(data)) {
    return [];
  }
  const reported = new Set(schemaProblems.map((p) => p.path));
  return problemsOf(() =>
    parseDeclaration(data.hooks, {
      file,
      baseDir: dirname(file),
      locate: parsed.locate,
      home: ctx.env("HOME"),
    })
  ).filter((p) => !reported.has(p.path));
}
