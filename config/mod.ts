/**
 * The CLI config: which file applies, reading it with positions, validating it against
 * `schema/cli-config.schema.json` (every problem, located), and filling defaults so that
 * every generated path is absolute.
 *
 * ```ts
 * const loaded = await loadConfig({ flag, env: (n) => Deno.env.get(n), cwd: Deno.cwd() });
 * loaded.config.eventLog.path; // absolute
 * loaded.locate(["hooks", 1, "on", 0]); // { line, col } in the file
 * ```
 *
 * @module
 */
import { dirname } from "node:path";
import { type Problem, ProblemsError } from "../errors.ts";
import schemaJson from "../schema/cli-config.schema.json" with { type: "json" };
import templateText from "./cli-config.template.yaml" with { type: "text" };
import type { SchemaNode } from "./_describe.ts";
import { fillConfig } from "./_fill.ts";
import { type ConfigSource, resolveConfigPath } from "./_resolve.ts";
import { type KeyPath, parseYaml, type Position } from "./_yaml.ts";
import type { CliConfig } from "./types.ts";

export type {
  CliConfig,
  Collaborator,
  Grant,
  HookEntry,
  PollSource,
  RoutingConfig,
} from "./types.ts";
export type { ConfigSource } from "./_resolve.ts";
export type { KeyPath, ParsedYaml, Position } from "./_yaml.ts";
export {
  absolutePath,
  CONFIG_FILE_NAME,
  type ExplicitConfig,
  explicitConfigPath,
  SOURCE_LABELS,
} from "./_resolve.ts";
export { formatKeyPath, parseYaml } from "./_yaml.ts";
export { didYouMean } from "./_describe.ts";

/** The CLI config's JSON Schema (draft 2020-12), embedded. */
export const CONFIG_SCHEMA: SchemaNode = schemaJson;

/** The commented starting config `the-loop init` writes, embedded. */
export const CONFIG_TEMPLATE: string = templateText;

/** The schema's file name, written beside the config by `the-loop init`. */
export const SCHEMA_FILE_NAME = "cli-config.schema.json";

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** The `--config` flag. */
  flag?: string;
  /** Reads an environment variable ($THE_LOOP_CLI_CONFIG, $GITHUB_API_URL, $HOME). */
  env: (name: string) => string | undefined;
  /** The working directory (for `./.the-loop/cli-config.yaml`). */
  cwd: string;
}

/** A loaded config and where it came from. */
export interface LoadedConfig {
  /** Absolute path of the file read; null when no file exists (all defaults). */
  path: string | null;
  source: ConfigSource;
  /** Directory relative paths in the file resolve against (cwd when there is no file). */
  baseDir: string;
  /** The resolved config: defaults filled, generated paths absolute. */
  config: CliConfig;
  /** Line and column (1-based) of a key path's value in the file, when it is there. */
  locate(keyPath: KeyPath): Position | undefined;
}

async function readConfigText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new ProblemsError([{
      file: path,
      message: `cannot read the config file (${(error as Error).message}); ` +
        "check that it is a readable file",
    }]);
  }
}

/** Resolves, reads, validates and fills the CLI config. Throws `ProblemsError` listing every problem. */
export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const { path, source } = await resolveConfigPath(opts);
  const baseDir = path ? dirname(path) : opts.cwd;
  let locate: (keyPath: KeyPath) => Position | undefined = () => undefined;
  let data: unknown = {};
  // ajv is imported here, not at the top, so that importing this module stays cheap
  const { envDefaultProblems, validateConfig } = await import("./_validate.ts");
  let problems: Problem[] = [];
  if (path) {
    const parsed = parseYaml(await readConfigText(path), path);
    if (parsed.problems.length > 0) throw new ProblemsError(parsed.problems);
    data = parsed.data ?? {};
    locate = parsed.locate;
    problems = validateConfig(CONFIG_SCHEMA, data, parsed, path);
  }
  // the variables that supply defaults ($GITHUB_API_URL) are checked too, listed after the file's
  problems = [...problems, ...envDefaultProblems(CONFIG_SCHEMA, data, opts.env)];
  if (problems.length > 0) throw new ProblemsError(problems);
  const config = fillConfig(CONFIG_SCHEMA, data, {
    baseDir,
    file: path,
    cwd: opts.cwd,
    env: opts.env,
  });
  return {
    path,
    source,
    baseDir,
    config: config as unknown as CliConfig,
    locate,
  };
}
