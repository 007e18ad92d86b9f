/**
 * Test helpers for the config package: a temp directory with files, and an env lookup.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { EnvReader } from "./types.ts";

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
