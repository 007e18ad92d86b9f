/**
 * Ends a harness and whatever it started: SIGTERM to its process group, its own pid and every
 * descendant found in the process table (`ps`), then SIGKILL to all of them once the grace has
 * passed without the harness ending. A descendant that left the tree (double fork, reparented to
 * init) before the first look is not found: the group kill is what reaches it, if anything.
 *
 * @module
 */
import { delay } from "../../async/mod.ts";

/** How long a SIGKILLed tree gets to be reaped before the call returns anyway. */
const KILL_SETTLE_MS = 5000;

function signal(pid: number, sig: Deno.Signal): void {
  try {
    Deno.kill(pid, sig);
  } catch { /* gone already, or not ours */ }
}

/** Every descendant of `root` in the process table (empty when `ps` is unavailable). */
export async function descendantsOf(root: number): Promise<number[]> {
  let text: string;
  try {
    const out = await new Deno.Command("ps", {
      args: ["-A", "-o", "pid=,ppid="],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    text = new TextDecoder().decode(out.stdout);
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of text.split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (!Number.isInteger(pid) || !Number.isInteger(ppid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (child === Deno.pid || found.includes(child)) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** What {@linkcode terminateTree} needs. */
export interface TerminateOptions {
  /** How long the tree gets to exit after SIGTERM; `0` sends SIGKILL at once. */
  graceMs: number;
  /** Whether the harness has ended (polled during the grace). */
  gone: () => Promise<boolean> | boolean;
  /** Whether `root` leads its own process group (a `detached` child, a tmux pane). */
  group: boolean;
}

/** SIGTERMs the tree of `root`, then SIGKILLs what is left after the grace. */
export async function terminateTree(
  root: number,
  opts: TerminateOptions,
): Promise<"terminated" | "killed"> {
  const tree = new Set(await descendantsOf(root));
  if (opts.group) signal(-root, "SIGTERM");
  signal(root, "SIGTERM");
  for (const pid of tree) signal(pid, "SIGTERM");
  const until = Date.now() + opts.graceMs;
  let ended = await opts.gone();
  while (!ended && Date.now() < until) {
    await delay(Math.min(50, Math.max(1, until - Date.now())));
    ended = await opts.gone();
  }
  if (!ended) { for (const pid of await descendantsOf(root)) tree.add(pid); }
  if (opts.group) signal(-root, "SIGKILL");
  if (!ended) signal(root, "SIGKILL");
  for (const pid of tree) signal(pid, "SIGKILL");
  if (ended) return "terminated";
  // SIGKILL cannot be refused, but its reaping (a tmux pane turning dead) takes a moment
  const bound = Date.now() + KILL_SETTLE_MS;
  while (!(await opts.gone()) && Date.now() < bound) await delay(20);
  return "killed";
}
