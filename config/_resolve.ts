/**
 * Which config file applies: `--config` > `$THE_LOOP_CLI_CONFIG` > `./.the-loop/cli-config.yaml`
 * > `~/.the-loop/cli-config.yaml`. A file named explicitly must exist; a looked-up one may not.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { exists } from "../state/files.ts";

/** Where the config file came from. */
export type ConfigSource = "flag" | "env" | "cwd" | "home" | "none";

/** The config file's name inside a `.the-loop` directory. */
export const CONFIG_FILE_NAME = "cli-config.yaml";

/** What a source is called in messages and `config show`. */
export const SOURCE_LABELS: Record<ConfigSource, string> = {
  flag: "--config",
  env: "$THE_LOOP_CLI_CONFIG",
  cwd: "./.the-loop",
  home: "~/.the-loop",
  none: "defaults",
};

/** Inputs to resolution. */
export interface ResolveInput {
  flag?: string;
  env: (name: string) => string | undefined;
  cwd: string;
}

/** The file that applies, absolute, or `null` when none was found by lookup. */
export interface Resolved {
  path: string | null;
  source: ConfigSource;
}

/** Expands a leading `~/` (or a lone `~`) with `$HOME`; other paths are returned as they are. */
export function expandHome(path: string, env: (name: string) => string | undefined): string {
  const home = env("HOME");
  if (!home || !(path === "~" || path.startsWith("~/"))) return path;
  return join(home, path.slice(1));
}

/** Resolves `path` (with `~` expanded) against `base`. */
export function absolutePath(
  path: string,
  base: string,
  env: (name: string) => string | undefined,
): string {
  const expanded = expandHome(path, env);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
}

/** A config file named explicitly, by `--config` or `$THE_LOOP_CLI_CONFIG`. */
export interface ExplicitConfig {
  /** Absolute path. */
  path: string;
  source: "flag" | "env";
}

/**
 * The file named by `--config`, else by `$THE_LOOP_CLI_CONFIG` (absolute, `~` expanded), or
 * `undefined` when neither names one. `the-loop init` writes there; every command reads there.
 */
export function explicitConfigPath(input: ResolveInput): ExplicitConfig | undefined {
  const named: [string | undefined, "flag" | "env"][] = [
    [input.flag, "flag"],
    [input.env("THE_LOOP_CLI_CONFIG"), "env"],
  ];
  for (const [name, source] of named) {
    if (name) return { path: absolutePath(name, input.cwd, input.env), source };
  }
  return undefined;
}

/** Finds the config file. Throws when an explicitly named file does not exist. */
export async function resolveConfigPath(input: ResolveInput): Promise<Resolved> {
  const explicit = explicitConfigPath(input);
  if (explicit) {
    if (!(await exists(explicit.path))) {
      throw new Error(
        `config file not found: ${explicit.path} (from ${SOURCE_LABELS[explicit.source]}); ` +
          "create one with `the-loop init`",
      );
    }
    return explicit;
  }
  const home = input.env("HOME");
  const lookup: [string | undefined, ConfigSource][] = [
    [input.cwd, "cwd"],
    [home, "home"],
  ];
  for (const [dir, source] of lookup) {
    if (!dir) continue;
    const path = resolve(dir, ".the-loop", CONFIG_FILE_NAME);
    if (await exists(path)) return { path, source };
  }
  return { path: null, source: "none" };
}
