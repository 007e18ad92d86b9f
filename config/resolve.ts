/**
 * Which config file applies, looked up the way git finds its repository: `--config` >
 * `$THE_LOOP_CLI_CONFIG` > `.the-loop/cli-config.yaml` in the working folder, then in each parent
 * folder up to the filesystem root > `~/.the-loop/cli-config.yaml`. A file named explicitly must
 * exist; a looked-up one may not. Relative paths inside the file resolve against the file's own
 * folder, wherever the command runs.
 *
 * Like git's `safe.directory` check, a looked-up file must belong to you (the owner of `$HOME`),
 * to root, or to the owner of the working folder: a config can name programs to run, and the walk
 * passes folders others can write to (`/tmp`). A file named explicitly is always read.
 *
 * @module
 */
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { messageOf, plural } from "../errors.ts";
import { exists } from "../state/files.ts";
import type { EnvReader } from "./types.ts";

/**
 * Where the config file came from: named by `--config` (`flag`) or `$THE_LOOP_CLI_CONFIG`
 * (`env`), `found` in the working folder or a parent's `.the-loop`, in `~/.the-loop` (`home`),
 * or `none` (defaults).
 */
export type ConfigSource = "flag" | "env" | "found" | "home" | "none";

/** The config file's name inside a `.the-loop` directory. */
export const CONFIG_FILE_NAME = "cli-config.yaml";

/** The directory looked for in each folder. */
export const CONFIG_DIR_NAME = ".the-loop";

/** What a source is called in messages and `config show` (`found` adds which folder). */
export const SOURCE_LABELS: Record<ConfigSource, string> = {
  flag: "--config",
  env: "$THE_LOOP_CLI_CONFIG",
  found: "found by lookup",
  home: "~/.the-loop",
  none: "defaults",
};

/** Inputs to resolution. */
export interface ResolveInput {
  flag?: string;
  env: EnvReader;
  cwd: string;
}

/** The file that applies, absolute, or `null` when none was found by lookup. */
export interface Resolved {
  path: string | null;
  source: ConfigSource;
  /**
   * The `.the-loop` directories looked in, in order, up to the one found (empty when the file
   * was named explicitly).
   */
  searched: string[];
}

/** Expands a leading `~/` (or a lone `~`) with `$HOME`; other paths are returned as they are. */
export function expandHome(path: string, env: EnvReader): string {
  const home = env("HOME");
  if (!home || !(path === "~" || path.startsWith("~/"))) return path;
  return join(home, path.slice(1));
}

/** Resolves `path` (with `~` expanded) against `base`. */
export function absolutePath(
  path: string,
  base: string,
  env: EnvReader,
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

/**
 * The `.the-loop` directories the lookup tries, in order: the working folder's, each parent's
 * up to the filesystem root, then `~/.the-loop` (unless the walk already passed it).
 */
export function lookupDirs(input: ResolveInput): string[] {
  const dirs: string[] = [];
  let dir = resolve(input.cwd);
  for (;;) {
    dirs.push(join(dir, CONFIG_DIR_NAME));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const home = input.env("HOME");
  if (home) {
    const inHome = join(resolve(input.cwd, home), CONFIG_DIR_NAME);
    if (!dirs.includes(inHome)) dirs.push(inHome);
  }
  return dirs;
}

async function isThere(path: string): Promise<boolean> {
  try {
    return await exists(path);
  } catch (error) {
    throw new Error(
      `cannot look for a config file at ${path} (${messageOf(error)}); ` +
        "fix that folder's permissions, or name a config file with --config",
    );
  }
}

/**
 * Throws unless the looked-up `path` belongs to root, to the owner of the home folder (you), or
 * to the owner of the working folder. (Owners, not the process's uid: reading that would need a
 * permission the CLI does not have.)
 */
async function checkOwner(path: string, input: ResolveInput): Promise<void> {
  // a file that cannot be stat'ed (a dangling link) is reported when it is read
  const owner = await Deno.stat(path).then((s) => s.uid, () => null);
  if (owner === null || owner === 0) return;
  const ownerOf = (dir: string | undefined) =>
    dir ? Deno.stat(resolve(input.cwd, dir)).then((s) => s.uid, () => null) : null;
  if (owner === await ownerOf(input.env("HOME")) || owner === await ownerOf(input.cwd)) return;
  throw new Error(
    `${path} was found by lookup but belongs to another user (uid ${owner}), and a config can ` +
      "name programs to run; a looked-up config is read only when it belongs to you (the owner " +
      "of $HOME), to root or to the owner of the working folder — name it with --config (or " +
      "$THE_LOOP_CLI_CONFIG) to use it anyway",
  );
}

/**
 * Finds the config file. Throws when an explicitly named file does not exist, or when the file
 * the lookup finds belongs to someone else (see the module doc).
 */
export async function resolveConfigPath(input: ResolveInput): Promise<Resolved> {
  const explicit = explicitConfigPath(input);
  if (explicit) {
    if (!(await isThere(explicit.path))) {
      throw new Error(
        `config file not found: ${explicit.path} (from ${SOURCE_LABELS[explicit.source]}); ` +
          "create one with `the-loop init`",
      );
    }
    return { ...explicit, searched: [] };
  }
  const dirs = lookupDirs(input);
  const home = input.env("HOME");
  const homeDir = home ? join(resolve(input.cwd, home), CONFIG_DIR_NAME) : undefined;
  for (let i = 0; i < dirs.length; i++) {
    const path = join(dirs[i], CONFIG_FILE_NAME);
    if (await isThere(path)) {
      await checkOwner(path, input);
      const source = dirs[i] === homeDir ? "home" : "found";
      return { path, source, searched: dirs.slice(0, i + 1) };
    }
  }
  return { path: null, source: "none", searched: dirs };
}

/** What {@linkcode describeOrigin} needs: a resolution and the folders it started from. */
export interface OriginInput {
  path: string | null;
  source: ConfigSource;
  searched: readonly string[];
  cwd: string;
  home?: string;
}

/** `dir` for people: `./.the-loop` for the working folder's, `~/…` under HOME, else as is. */
function shortDir(dir: string, cwd: string, home?: string): string {
  const rel = relative(cwd, dir);
  if (rel === CONFIG_DIR_NAME) return `./${rel}`;
  if (home && home !== "/" && dir.startsWith(home.replace(/\/$/, "") + "/")) {
    return `~/${relative(home, dir)}`;
  }
  return dir;
}

/**
 * The lookup in words, e.g. `./.the-loop and 4 parent folders up to /, then ~/.the-loop`: the
 * folders listed in `searched` (as {@linkcode lookupDirs} gives them), shortened.
 */
export function describeSearch(
  searched: readonly string[],
  opts: { cwd: string; home?: string },
): string {
  if (searched.length === 0) return "nowhere (the file was named explicitly)";
  const home = opts.home ? resolve(opts.cwd, opts.home) : undefined;
  // the walk up: each entry is the previous one's parent folder's .the-loop, ending at the root
  let walk = 1;
  while (walk < searched.length) {
    const folder = dirname(searched[walk - 1]);
    if (dirname(folder) === folder) break;
    if (searched[walk] !== join(dirname(folder), CONFIG_DIR_NAME)) break;
    walk++;
  }
  const parents = walk - 1;
  let text = shortDir(searched[0], opts.cwd, home);
  if (parents > 0) {
    text += ` and ${plural(parents, "parent folder")} up to ` +
      dirname(searched[walk - 1]);
  }
  for (const dir of searched.slice(walk)) text += `, then ${shortDir(dir, opts.cwd, home)}`;
  return text;
}

/**
 * One line saying where the config came from, for messages: `PATH (LABEL)` for a file, or
 * `no config file found in ./.the-loop and 4 parent folders up to /, then ~/.the-loop; defaults
 * apply`.
 */
export function describeOrigin(o: OriginInput): string {
  if (o.path === null) {
    return `no config file found in ${describeSearch(o.searched, o)}; defaults apply`;
  }
  return `${o.path} (${sourceLabel(o)})`;
}

/** The source's label; for `found`, which folder: `found in ./.the-loop`, `found in ../../.the-loop`. */
export function sourceLabel(o: OriginInput): string {
  if (o.source !== "found" || o.path === null) return SOURCE_LABELS[o.source];
  const dir = dirname(o.path);
  const rel = relative(o.cwd, dir);
  return `found in ${rel.startsWith("..") ? rel : `./${rel}`}`;
}
