/**
 * Test helpers for the config package: a temp directory with files, an env lookup, and a config
 * text loaded as a file (its config, or the lines of its problems).
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { ProblemsError } from "../errors.ts";
import { loadConfig } from "./mod.ts";
import type { CliConfig, EnvReader } from "./types.ts";

/** Makes a temp dir holding `files` (path relative to it → content); returns its real path. */
export function tempTree(files: Record<string, string> = {}): string {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "the-loop-config-" }));
  for (const [rel, text] of Object.entries(files)) {
    Deno.mkdirSync(dirname(join(dir, rel)), { recursive: true });
    Deno.writeTextFileSync(join(dir, rel), text);
  }
  return dir;
}

/** An `env` function over a fixed map. */
export function envOf(vars: Record<string, string>): EnvReader {
  return (name) => vars[name];
}

/** The config of loading `text` as a config file, with `vars` as the environment. */
export async function loadText(
  text: string,
  vars: Record<string, string> = {},
): Promise<CliConfig> {
  const dir = tempTree({ "c.yaml": text });
  return (await loadConfig({ flag: join(dir, "c.yaml"), env: envOf(vars), cwd: dir })).config;
}

/** The problem lines of loading `text` as a config file (the file's path shown as `F`). */
export async function loadProblems(
  text: string,
  vars: Record<string, string> = {},
): Promise<string[]> {
  const dir = tempTree({ "c.yaml": text });
  const file = join(dir, "c.yaml");
  const error = await loadConfig({ flag: file, env: envOf(vars), cwd: dir }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof ProblemsError, `expected ProblemsError, got ${error}`);
  return error.message.replaceAll(file, "F").split("\n");
}
