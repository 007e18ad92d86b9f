/**
 * The running demo's address book: one JSON file in a well-known place, so `the-loop demo
 * comment` and `demo close` (another shell, any folder) find the demo that runs. Written by
 * `the-loop demo` once everything is up (mode 0600: it holds the demo person's token for the
 * fake GitHub, which reaches nothing real), removed when it stops.
 *
 * | where                                     | when                        |
 * | ----------------------------------------- | --------------------------- |
 * | `$XDG_RUNTIME_DIR/the-loop-demo.json`     | `XDG_RUNTIME_DIR` is set    |
 * | `/tmp/the-loop-demo-<uid>.json`           | otherwise                   |
 *
 * `THE_LOOP_DEMO_FILE` names another path (tests; two demos side by side).
 *
 * @module
 */
import { join } from "node:path";
import type { EnvReader } from "../config/mod.ts";
import { writeFileAtomic } from "../state/atomic.ts";

/** What a running demo records. */
export interface DemoRun {
  version: 1;
  /** The demo's own process. */
  pid: number;
  /** The daemon it runs (`poll start` or `gh-webhook start`). */
  daemonPid: number;
  daemon: "poll" | "gh-webhook";
  /** Its folder (state, workspaces, git repositories, logs). */
  dir: string;
  /** The daemon's config file. */
  config: string;
  /** The fake GitHub's API URL. */
  apiUrl: string;
  /** The demo person's token for the fake GitHub (writes with it are `user`'s). */
  userToken: string;
  user: string;
  repo: string;
  runner: "tmux" | "process";
  /** The private tmux server's socket name (`tmux -L`), when the runner is tmux. */
  tmuxSocket: string | null;
  /** The status page's URL (`null` when the daemon serves none). */
  pageUrl: string | null;
  startedAt: string;
}

/** Where the run file is (see the module doc). */
export function demoRunPath(env: EnvReader): string {
  const named = env("THE_LOOP_DEMO_FILE");
  if (named) return named;
  const runtime = env("XDG_RUNTIME_DIR");
  if (runtime) return join(runtime, "the-loop-demo.json");
  return join("/tmp", `the-loop-demo-${Deno.uid() ?? "user"}.json`);
}

/** Writes it (0600, atomically). */
export async function writeDemoRun(path: string, run: DemoRun): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(run, null, 2) + "\n", { mode: 0o600 });
}

/** Reads it; throws saying how to start a demo when there is none. */
export async function readDemoRun(path: string): Promise<DemoRun> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Error(`no demo is running (no ${path}): start one with \`the-loop demo\``);
    }
    throw e;
  }
  try {
    const run = JSON.parse(text) as DemoRun;
    if (run.version !== 1 || typeof run.apiUrl !== "string") throw new Error("not a demo run");
    return run;
  } catch {
    throw new Error(`${path} is not a demo's run file: remove it, then start \`the-loop demo\``);
  }
}

/** Removes it when it is still `pid`'s (a newer demo's file is left alone). */
export async function removeDemoRun(path: string, pid: number): Promise<void> {
  try {
    const run = JSON.parse(await Deno.readTextFile(path)) as DemoRun;
    if (run.pid === pid) await Deno.remove(path);
  } catch { /* gone already */ }
}
