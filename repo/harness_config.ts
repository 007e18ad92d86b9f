/**
 * The repository's own configuration for the harnesses that work on it:
 * `.the-loop/harness-config.yaml` at the repository's top (committed with the code, so it names
 * no secrets). {@linkcode repoRoot} finds the top (`--root`, else `git rev-parse
 * --show-toplevel` from the working directory, else the working directory itself);
 * {@linkcode readHarnessConfig} reads the file as plain YAML with positions (the config's
 * reader, `config/mod.ts`), every syntax problem at `file:line:col`.
 *
 * ```ts
 * const root = await repoRoot({ root: flags.root, cwd: ctx.cwd });
 * const found = await readHarnessConfig(root); // undefined when there is no such file
 * found?.data.reviews;
 * ```
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { parseYaml } from "../config/mod.ts";
import { type Problem, ProblemsError } from "../errors.ts";

/** The folder and file name of the repository's harness config. */
export const HARNESS_CONFIG_PATH = ".the-loop/harness-config.yaml";

/**
 * The repository root: `root` resolved against `cwd` when given; else the top of the git
 * repository `cwd` is in; else `cwd` (not a repository, or no `git`).
 */
export async function repoRoot(o: { root?: string; cwd: string }): Promise<string> {
  if (o.root !== undefined && o.root !== "") {
    return isAbsolute(o.root) ? o.root : resolve(o.cwd, o.root);
  }
  try {
    const out = await new Deno.Command("git", {
      args: ["rev-parse", "--show-toplevel"],
      cwd: o.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const top = new TextDecoder().decode(out.stdout).trim();
    if (out.success && top) return top;
  } catch { /* no git: the working directory */ }
  return o.cwd;
}

/**
 * Reads `<root>/.the-loop/harness-config.yaml`: its path and its data (a mapping; an empty file
 * is `{}`), or `undefined` when the file does not exist. Throws `ProblemsError` with every
 * problem located (`file:line:col`) when it cannot be read, is not YAML, or is not a mapping.
 */
export async function readHarnessConfig(
  root: string,
): Promise<{ path: string; data: Record<string, unknown> } | undefined> {
  const path = join(root, HARNESS_CONFIG_PATH);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    const why = err instanceof Error ? err.message : String(err);
    throw new ProblemsError([{ file: path, message: `cannot read it: ${why}` }]);
  }
  const parsed = parseYaml(text, path);
  if (parsed.problems.length > 0) throw new ProblemsError(parsed.problems);
  const data = parsed.data ?? {};
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    const problem: Problem = {
      file: path,
      ...(parsed.locate([]) ?? {}),
      message: "must be a mapping (keys such as `reviews:`)",
    };
    throw new ProblemsError([problem]);
  }
  return { path, data: data as Record<string, unknown> };
}
