/**
 * The shell around `parse.ts`: which globs to read (`--glob`, else the harness config's
 * `testing.integrationTestGlobs`, else {@linkcode DEFAULT_GLOBS}), the walk of the root that
 * finds the files they match, and the scenarios in them, sorted by file and line.
 *
 * The walk follows no symbolic link and never enters {@linkcode SKIPPED_DIRS}; a glob is matched
 * against the path relative to the root, `/`-separated (`node:path`'s `matchesGlob`: `*`, `**`,
 * `?`, `[…]`, `{a,b}`). Only files whose comment syntax is known are read (`comments.ts`), and
 * none larger than {@linkcode MAX_FILE_BYTES}; a file that cannot be read is skipped with a
 * warning.
 *
 * @module
 */
import { join, matchesGlob } from "node:path";
import { formatKeyPath, type KeyPath } from "../../config/mod.ts";
import { formatProblem, messageOf, UsageError } from "../../errors.ts";
import type { HarnessConfig } from "../harness_config.ts";
import { syntaxOf } from "./comments.ts";
import { parseScenarios, type Scenario } from "./parse.ts";

/** The globs read when neither `--glob` nor the harness config names any: common test layouts. */
export const DEFAULT_GLOBS: readonly string[] = [
  "**/*_test.ts",
  "**/*.test.ts",
  "**/*.spec.ts",
  "**/*.test.tsx",
  "**/*.spec.tsx",
  "**/*.test.js",
  "**/*.spec.js",
  "**/*.test.mjs",
  "**/*.test.jsx",
  "**/*.spec.jsx",
  "**/test_*.py",
  "**/*_test.py",
  "**/*_test.go",
  "**/__tests__/**",
  "tests/**",
  "test/**",
  "e2e/**",
  "features/**",
];

/** Folders the walk never enters, wherever they are. */
export const SKIPPED_DIRS: readonly string[] = [
  ".git",
  "node_modules",
  "vendor",
  ".venv",
  "__pycache__",
];

/** Files larger than this are not read (a generated or vendored file, not a test). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Where the globs came from. */
export type GlobSource = "flag" | "harness-config" | "default";

/** The globs to read and where they came from. */
export interface Globs {
  globs: string[];
  source: GlobSource;
}

const GLOBS_KEY: KeyPath = ["testing", "integrationTestGlobs"];

/**
 * The globs: `flags` when there are any, else the harness config's
 * `testing.integrationTestGlobs` (a non-empty list of strings; an empty one, or none, means the
 * defaults), else {@linkcode DEFAULT_GLOBS}. A key of the wrong shape is a `UsageError` at
 * `file:line:col`.
 */
export function chooseGlobs(flags: readonly string[], config?: HarnessConfig): Globs {
  if (flags.length > 0) return { globs: [...flags], source: "flag" };
  const fromConfig = config ? configGlobs(config) : undefined;
  if (fromConfig && fromConfig.length > 0) return { globs: fromConfig, source: "harness-config" };
  return { globs: [...DEFAULT_GLOBS], source: "default" };
}

function configGlobs(config: HarnessConfig): string[] | undefined {
  const bad = (path: KeyPath, message: string): never => {
    const at = config.locate(path);
    throw new UsageError(formatProblem({
      file: config.path,
      ...at,
      path: formatKeyPath(path),
      message,
    }));
  };
  const testing = config.data.testing;
  if (testing === undefined || testing === null) return undefined;
  if (typeof testing !== "object" || Array.isArray(testing)) {
    return bad(["testing"], "must be a mapping (with integrationTestGlobs: a list of globs)");
  }
  const globs = (testing as Record<string, unknown>).integrationTestGlobs;
  if (globs === undefined || globs === null) return undefined;
  if (!Array.isArray(globs)) return bad(GLOBS_KEY, 'must be a list of globs, e.g. ["tests/**"]');
  globs.forEach((g, i) => {
    if (typeof g !== "string" || g.trim() === "") {
      bad([...GLOBS_KEY, i], "must be a glob (a non-empty string)");
    }
  });
  return globs as string[];
}

/** A glob as matched: a leading `./` dropped. */
function normalGlob(glob: string): string {
  return glob.replace(/^(\.\/)+/, "");
}

/** Does `rel` (relative to the root, `/`-separated) match any of `globs`? */
export function matchesAny(rel: string, globs: readonly string[]): boolean {
  return globs.some((g) => matchesGlob(rel, normalGlob(g)));
}

/** What {@linkcode findScenarios} takes. */
export interface FindOptions {
  /** The folder to walk (absolute). */
  root: string;
  globs: readonly string[];
  /** Told about each file skipped because it could not be read. */
  warn?: (message: string) => void;
  /**
   * Reads a file's text; undefined: too large to read. Default: the file system, refusing a file
   * over {@linkcode MAX_FILE_BYTES}.
   */
  read?: (path: string) => Promise<string | undefined>;
}

async function readSmall(path: string): Promise<string | undefined> {
  if ((await Deno.stat(path)).size > MAX_FILE_BYTES) return undefined;
  return await Deno.readTextFile(path);
}

/** What {@linkcode findScenarios} found. */
export interface Found {
  /** How many files matched a glob and were read. */
  filesScanned: number;
  /** Every scenario, by file (relative to the root) then line. */
  scenarios: Scenario[];
}

async function* walk(root: string, rel = ""): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(rel ? join(root, rel) : root)) entries.push(e);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) {
      if (!SKIPPED_DIRS.includes(e.name)) yield* walk(root, path);
    } else if (e.isFile) yield path;
  }
}

/** Walks `root` and reads the scenarios of every file a glob matches. */
export async function findScenarios(opts: FindOptions): Promise<Found> {
  const scenarios: Scenario[] = [];
  let filesScanned = 0;
  for await (const file of walk(opts.root)) {
    const syntax = syntaxOf(file);
    if (!syntax || !matchesAny(file, opts.globs)) continue;
    const path = join(opts.root, file);
    let text: string | undefined;
    try {
      text = await (opts.read ?? readSmall)(path);
    } catch (error) {
      opts.warn?.(`skipped ${file}: ${messageOf(error)}`);
      continue;
    }
    if (text === undefined) continue;
    filesScanned++;
    scenarios.push(...parseScenarios(text, { file, syntax }));
  }
  return { filesScanned, scenarios };
}
