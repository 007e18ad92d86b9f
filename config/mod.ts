/**
 * The CLI config: which file applies (`--config`, `$THE_LOOP_CLI_CONFIG`, else the nearest
 * `.the-loop/cli-config.yaml` from the working directory up to the root, else `~/.the-loop`),
 * reading it as plain YAML with positions, validating it against
 * `schema/cli-config.schema.json` (every problem, located, tokens masked), and filling defaults
 * so that every generated path is absolute.
 *
 * ```ts
 * const loaded = await loadConfig({ flag, env: (n) => Deno.env.get(n), cwd: Deno.cwd() });
 * loaded.config.eventLog.path; // absolute
 * loaded.locate(["hooks", 1, "on", 0]); // { line, col } in the file
 * loaded.origin; // "/work/app/.the-loop/cli-config.yaml (found in ../.the-loop)"
 * ```
 *
 * @module
 */
import { dirname } from "node:path";
import { byPosition, messageOf, type Problem, ProblemsError } from "../errors.ts";
import schemaJson from "../schema/cli-config.schema.json" with { type: "json" };
import templateText from "./cli-config.template.yaml" with { type: "text" };
import type { SchemaNode } from "./describe.ts";
import { fillConfig } from "./_fill.ts";
import { channelProblems, fillChannels } from "./channels.ts";
import { type ConfigSource, describeOrigin, resolveConfigPath } from "./resolve.ts";
import { maskProblem } from "./_secrets.ts";
import { type KeyPath, parseYaml, type Position } from "./yaml.ts";
import type { CliConfig, EnvReader } from "./types.ts";

export type {
  BudgetsConfig,
  Channel,
  ChannelBase,
  ChannelType,
  CiDelivery,
  CliConfig,
  Collaborator,
  CommandChannel,
  DeliverConfig,
  EnvReader,
  Grant,
  Grants,
  HookEntry,
  NotificationEventName,
  NotificationsConfig,
  PollSource,
  RoutingConfig,
  SlackChannel,
  UiConfig,
  WebhookChannel,
} from "./types.ts";
export { DEFAULT_SLACK_URL_ENV, defaultChannelName } from "./channels.ts";
export type { ConfigSource } from "./resolve.ts";
export type { KeyPath, ParsedYaml, Position } from "./yaml.ts";
export {
  absolutePath,
  CONFIG_DIR_NAME,
  CONFIG_FILE_NAME,
  describeOrigin,
  describeSearch,
  type ExplicitConfig,
  explicitConfigPath,
  lookupDirs,
  type OriginInput,
  resolveConfigPath,
  type Resolved,
  SOURCE_LABELS,
  sourceLabel,
} from "./resolve.ts";
export { MAX_ALIAS_VALUES, MAX_DEPTH } from "./yaml.ts";
export { formatKeyPath, locateNear, parseYaml } from "./yaml.ts";
export { didYouMean, isMapping, showValue } from "./describe.ts";

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
  env: EnvReader;
  /** The working directory: the lookup starts in its `.the-loop` and walks up to the root. */
  cwd: string;
}

/** A loaded config and where it came from. */
export interface LoadedConfig {
  /** Absolute path of the file read; null when no file exists (all defaults). */
  path: string | null;
  source: ConfigSource;
  /**
   * The `.the-loop` directories the lookup tried, in order, up to the one found (all of them
   * when none was found; empty when the file was named by `--config` or `$THE_LOOP_CLI_CONFIG`).
   */
  searched: string[];
  /**
   * Where the config came from, in one line for messages: `PATH (found in ../.the-loop)`, or
   * `no config file found in ./.the-loop and 4 parent folders up to /, then ~/.the-loop;
   * defaults apply`.
   */
  origin: string;
  /** Directory relative paths in the file resolve against (cwd when there is no file). */
  baseDir: string;
  /** The resolved config: defaults filled, generated paths absolute. */
  config: CliConfig;
  /** Line and column (1-based) of a key path's value in the file, when it is there. */
  locate(keyPath: KeyPath): Position | undefined;
  /** The file's text as read (null: no file); daemons hash it to see later edits. */
  text?: string | null;
}

async function readConfigText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new ProblemsError([{
      file: path,
      message: `cannot read the config file (${messageOf(error)}); ` +
        "check that it is a readable file",
    }]);
  }
}

/** Options for {@linkcode configFromText}. */
export interface ConfigFromTextOptions {
  /** The file the text is from (problems name it; relative paths resolve beside it); null: none. */
  file: string | null;
  env: EnvReader;
  /** The working directory (relative defaults resolve here when there is no file). */
  cwd: string;
}

/**
 * Checks and fills config text as if read from `opts.file` (`null` text: no file, all defaults):
 * what {@linkcode loadConfig} does once it has found and read the file. Throws `ProblemsError`
 * listing every problem, each located, tokens masked.
 */
export async function configFromText(
  text: string | null,
  opts: ConfigFromTextOptions,
): Promise<Pick<LoadedConfig, "config" | "locate">> {
  const { file } = opts;
  let locate: (keyPath: KeyPath) => Position | undefined = () => undefined;
  let data: unknown = {};
  // ajv is imported here, not at the top, so that importing this module stays cheap
  const { envDefaultProblems, harnessEnvProblems, validateConfig } = await import(
    "./_validate.ts"
  );
  let problems: Problem[] = [];
  if (text !== null && file !== null) {
    const parsed = parseYaml(text, file);
    if (parsed.problems.length > 0) throw new ProblemsError(parsed.problems.map(maskProblem));
    data = parsed.data ?? {};
    locate = parsed.locate;
    problems = validateConfig(CONFIG_SCHEMA, data, parsed, file);
    // what the schema cannot say: the variables the agent's environment must never hold
    if (problems.length === 0) {
      problems = [...harnessEnvProblems(data, parsed, file), ...channelProblems(data, parsed, file)]
        .sort(byPosition);
    }
  }
  // the variables that supply defaults ($GITHUB_API_URL) are checked too, listed after the file's
  problems = [...problems, ...envDefaultProblems(CONFIG_SCHEMA, data, opts.env)];
  if (problems.length > 0) throw new ProblemsError(problems.map(maskProblem));
  const config = fillConfig(CONFIG_SCHEMA, data, {
    baseDir: file ? dirname(file) : opts.cwd,
    file,
    cwd: opts.cwd,
    env: opts.env,
  });
  fillChannels(config, file ? dirname(file) : opts.cwd);
  return { config: config as unknown as CliConfig, locate };
}

/** Resolves, reads, validates and fills the CLI config. Throws `ProblemsError` listing every problem. */
export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const { path, source, searched } = await resolveConfigPath(opts);
  const text = path ? await readConfigText(path) : null;
  const { config, locate } = await configFromText(text, {
    file: path,
    env: opts.env,
    cwd: opts.cwd,
  });
  return {
    path,
    source,
    searched,
    origin: describeOrigin({ path, source, searched, cwd: opts.cwd, home: opts.env("HOME") }),
    baseDir: path ? dirname(path) : opts.cwd,
    config,
    locate,
    text,
  };
}
