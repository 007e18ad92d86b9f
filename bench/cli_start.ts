/**
 * Bench: cold start of the CLI, `the-loop --version` (a process that loads every command module
 * and exits).
 *
 * @module
 */
import { measureCli } from "./_cli.ts";

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-" });
  try {
    return { version: await measureCli(["--version"], dir) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
