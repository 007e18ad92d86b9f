/**
 * The repository a repo-scoped command works on, and its harness config,
 * `.the-loop/harness-config.yaml` (what the harness side of a repository declares: the tests
 * `the-loop scenarios` reads, the critics a review runs, …). This module only finds the root and
 * parses the file — YAML read with positions (`config/mod.ts`'s `parseYaml`), every syntax
 * problem at `file:line:col`; each caller validates its own keys, locating them with `locate`.
 *
 * ```ts
 * const root = await repoRoot({ root: flags.root, cwd: ctx.cwd });
 * const config = await readHarnessConfig(root); // undefined: the repository has none
 * const globs = config?.data.testing; // the caller's own key, checked by the caller
 * ```
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { isMapping, type KeyPath, parseYaml, type Position } from "../config/mod.ts";
import { messageOf, ProblemsError, UsageError } from "../errors.ts";
import { exists } from "../state/files.ts";

/** Where the harness config lives, relative to the repository's root. */
export const HARNESS_CONFIG_PATH = ".the-loop/harness-config.yaml";

/** What {@linkcode repoRoot} takes. */
export interface RepoRootOptions {
  /** The root named by the user (`--root`), relative to `cwd` unless absolute. */
  root?: string;
  /** The working directory. */
  cwd: string;
}

async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * The repository's root, absolute: `root` when given (it must be a directory, else a
 * `UsageError`), else the top of the git repository `cwd` is in (the nearest folder up holding
 * `.git`, a folder or a worktree's file), else `cwd` itself.
 */
export async function repoRoot(o: RepoRootOptions): Promise<string> {
  if (o.root !== undefined) {
    const dir = isAbsolute(o.root) ? o.root : resolve(o.cwd, o.root);
    const isDir = await isDirectory(dir);
    if (isDir === undefined) throw new UsageError(`--root ${o.root}: no such directory (${dir})`);
    if (!isDir) throw new UsageError(`--root ${o.root}: not a directory (${dir})`);
    return dir;
  }
  const start = resolve(o.cwd);
  for (let dir = start;;) {
    if (await exists(join(dir, ".git"))) return dir;
    const up = resolve(dir, "..");
    if (up === dir) return start;
    dir = up;
  }
}

/** A parsed harness config. */
export interface HarnessConfig {
  /** The file's absolute path. */
  path: string;
  /** Its top-level mapping ({} for an empty file). */
  data: Record<string, unknown>;
  /** Where the value at a key path starts, for a caller's own problems. */
  locate(path: KeyPath): Position | undefined;
}

/**
 * Reads `<root>/.the-loop/harness-config.yaml`: undefined when there is none; a
 * `ProblemsError` (each problem at `file:line:col`) when it cannot be read, is not YAML, or is
 * not a mapping at the top.
 */
export async function readHarnessConfig(root: string): Promise<HarnessConfig | undefined> {
  const path = join(root, HARNESS_CONFIG_PATH);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new ProblemsError([{ file: path, message: `cannot read it: ${messageOf(error)}` }]);
  }
  const parsed = parseYaml(text, path);
  if (parsed.problems.length > 0) throw new ProblemsError(parsed.problems);
  const data = parsed.data ?? {};
  if (!isMapping(data)) {
    const at = parsed.locate([]) ?? { line: 1, col: 1 };
    throw new ProblemsError([{
      file: path,
      ...at,
      message: `the harness config is a mapping of keys (got ${
        Array.isArray(data) ? "a list" : JSON.stringify(data)
      })`,
    }]);
  }
  return { path, data, locate: (p) => parsed.locate(p) };
}
