/**
 * How the-loop runs itself again: whether this process is the deno CLI on a source checkout or
 * a compiled the-loop, and the `deno run` flags of `deno.json`'s `the-loop` task. The hook host
 * (`executors/module/host_command.ts`) and the sessions' `the-loop` launcher
 * (`dispatch/agent_env.ts`) both start from here. Light on purpose: every command imports the
 * lifecycle face, and nothing here may pull the executors in.
 *
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };
import { basename } from "node:path";

/**
 * The `deno run` flags of `deno.json`'s `the-loop` task (its permissions), without `run` and
 * `main.ts`: how a source checkout runs the-loop again (the hook host, the sessions' launcher).
 */
export function taskFlags(
  words: string[] = denoJson.tasks["the-loop"].split(/\s+/).slice(1),
): string[] {
  return words.filter((w) => w !== "run" && w !== "main.ts");
}

/** Is `execPath` the deno CLI itself (running from source) rather than a compiled the-loop? */
export function isDenoCli(execPath: string): boolean {
  const base = basename(execPath).toLowerCase();
  return base === "deno" || base === "deno.exe";
}
