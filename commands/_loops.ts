/**
 * Reads the loops the way every `the-loop loops` command does: the CLI config loaded as usual,
 * then `parseLoops` over its `loops:` and `routing.loop` (strict: every problem, located). Also
 * the problems `config validate` adds for them, even when the schema check failed.
 *
 * @module
 */
import type { LoadedConfig } from "../config/mod.ts";
import type { Problem } from "../errors.ts";
import { type LoopSet, parseLoops } from "../loops/mod.ts";
import { loadCliConfig } from "./_config.ts";
import { problemsOf, rereadConfig } from "./_declaration.ts";
import type { CliContext } from "./context.ts";

/** The loaded config and its loops. */
export interface ReadLoops {
  loaded: LoadedConfig;
  loops: LoopSet;
}

/** The loops of an already loaded config (built-ins first). Throws `ProblemsError`. */
export function loopsOf(loaded: LoadedConfig): LoopSet {
  return parseLoops(loaded.config.loops, {
    ...(loaded.path ? { file: loaded.path } : {}),
    locate: (k) => loaded.locate(k),
    routingLoop: loaded.config.webhooks.ghWebhook.routing.loop,
  });
}

/** Loads the CLI config and reads its loops. Throws `ProblemsError` with every problem. */
export async function readLoops(ctx: CliContext): Promise<ReadLoops> {
  const loaded = await loadCliConfig(ctx);
  return { loaded, loops: loopsOf(loaded) };
}

/**
 * The loops' problems to report beside the config's own: from the loaded config when it loaded,
 * else (the schema check failed) from the file read again. Problems at a key path the schema
 * already reported are left out.
 */
export async function loopsProblems(
  loaded: LoadedConfig | undefined,
  schemaProblems: Problem[],
): Promise<Problem[]> {
  if (loaded) return problemsOf(() => loopsOf(loaded));
  const raw = await rereadConfig(schemaProblems);
  if (!raw) return [];
  const routing = (raw.data.webhooks as { ghWebhook?: { routing?: { loop?: unknown } } })
    ?.ghWebhook?.routing?.loop;
  const reported = new Set(schemaProblems.map((p) => p.path));
  return problemsOf(() =>
    parseLoops(raw.data.loops, {
      file: raw.file,
      locate: raw.locate,
      ...(typeof routing === "string" ? { routingLoop: routing } : {}),
    })
  ).filter((p) => !reported.has(p.path));
}
