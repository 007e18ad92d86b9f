/**
 * Shared bits of this folder's tests.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { Executor } from "../../executor.ts";
import { loadModuleHook, type ModuleHookOptions } from "./mod.ts";

/** Absolute path of a fixture in `testdata/`. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./testdata/${name}`, import.meta.url));
}

/** Loads `testdata/<file>` as a hook named after it; extra options override. */
export function loadFixture(
  file: string,
  opts: Partial<ModuleHookOptions> = {},
): Promise<Executor> {
  return loadModuleHook({
    name: file.replace(/\.ts$/, "").replaceAll("_", "-"),
    path: fixture(file),
    baseDir: fixture("."),
    ...opts,
  });
}

// Every test here runs with Deno's op and resource sanitizers on: executors close their
// workers, children and pipes. The scenarios that leak a thread for good (a busy loop in a
// worker, a hook signalling its own process) run in a process of their own instead
// (testdata/*_scenario.ts), so they cannot pin a CPU of, or kill, the test runner.

/** `promise`, or a rejection once `ms` have passed: keeps a regression from hanging the run. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@linkcode scenario} returns: the child's status and its decoded output. */
export interface ScenarioResult extends Deno.CommandStatus {
  stdout: string;
  stderr: string;
}

/**
 * Runs `testdata/<name>` (with `args`) in a process of its own, so a hook that got through would
 * kill or freeze it, not the test runner; SIGKILLs it (a SIGSTOPped process ignores anything
 * gentler) if it has not ended within `ms`. It runs with the permissions the-loop's hook tests
 * need: read, env and run (a stuck worker's thread is read through /bin/sh, as the-loop does).
 */
export async function scenario(
  name: string,
  opts: { args?: string[]; ms?: number } = {},
): Promise<ScenarioResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-env",
      "--allow-run",
      fixture(name),
      ...(opts.args ?? []),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, opts.ms ?? 90_000);
  try {
    const out = await child.output();
    const dec = new TextDecoder();
    return { ...out, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } finally {
    clearTimeout(timer);
  }
}
