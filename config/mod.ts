/**
 * STUB (being replaced by the config helper): the CLI config loader's public face.
 * Keep these exported names and signatures.
 *
 * @module
 */

/** Where the config file came from. */
export type ConfigSource = "flag" | "env" | "cwd" | "home" | "none";

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** The `--config` flag. */
  flag?: string;
  /** Reads an environment variable ($THE_LOOP_CLI_CONFIG, $GITHUB_API_URL, $HOME). */
  env: (name: string) => string | undefined;
  /** The working directory (for `./.the-loop/cli-config.yaml`). */
  cwd: string;
}

/** The resolved config: defaults filled, generated paths absolute. (Subset; see types.ts.) */
export interface CliConfig {
  state: { root: string };
  eventLog: { enabled: boolean; path: string };
  // deno-lint-ignore no-explicit-any
  [key: string]: any;
}

/** A loaded config and where it came from. */
export interface LoadedConfig {
  /** Absolute path of the file read; null when no file exists (all defaults). */
  path: string | null;
  source: ConfigSource;
  /** Directory relative paths in the file resolve against (cwd when there is no file). */
  baseDir: string;
  config: CliConfig;
  /** Line and column (1-based) of a key path in the file, when it is there. */
  locate(keyPath: (string | number)[]): { line: number; col: number } | undefined;
}

/** Resolves, reads, validates and fills the CLI config. Throws `ProblemsError` listing every problem. */
export function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const root = `${opts.cwd}/.the-loop`;
  return Promise.resolve({
    path: null,
    source: "none",
    baseDir: opts.cwd,
    config: { state: { root }, eventLog: { enabled: true, path: `${root}/logs/events.jsonl` } },
    locate: () => undefined,
  });
}
