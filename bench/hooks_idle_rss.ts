/**
 * Idle memory per loaded module hook: a fresh `deno run` child loads 1 hook, then N = 10 more
 * through the real loader (each its own sandboxed worker), and reports the RSS delta / N. Also
 * reports how long loading the N took (concurrently, as `loadExecutors` does at start).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { taskArgs } from "../tests/_test_utils.ts";
import { scaled } from "./_stats.ts";

const CHILD = fileURLToPath(new URL("./_idle_rss_child.ts", import.meta.url));
const HOOKS = 10;

/** Runs the child; returns its figures. */
export async function run(): Promise<Record<string, unknown>> {
  const flags = taskArgs().filter((a) => !a.endsWith("main.ts"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...flags, CHILD, String(HOOKS), String(scaled(1000, 100))],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  if (!out.success) {
    throw new Error(`idle RSS child failed (exit ${out.code}): ${text.decode(out.stderr)}`);
  }
  return JSON.parse(text.decode(out.stdout));
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
