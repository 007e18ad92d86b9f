/**
 * Runs one command hook process in its own process group under a single deadline that covers
 * spawn, the stdin write, the run and the output drain. Whatever is left of the group when the
 * call settles (a timeout, or background processes after a normal exit) is killed with SIGKILL.
 *
 * The group comes from `Deno.Command`'s `detached` option, which makes the child a session and
 * process-group leader (setsid) before exec: no launcher program is needed.
 *
 * @module
 */
import { type Capture, capture, type Captured } from "./_capture.ts";

/** Options for {@linkcode runGroup}. */
export interface RunOptions {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input: Uint8Array;
  maxOutputBytes: number;
  timeoutMs: number;
  /** Registers a kill switch for `close()`; the returned function unregisters it. */
  track(kill: () => void): () => void;
}

/** How a run ended. */
export type RunOutcome =
  | { kind: "exited"; code: number; signal: string | null; stdout: Captured; stderr: Captured }
  | {
    kind: "timeout";
    /** The leader's status when it had exited but its output was still held open. */
    leader: Deno.CommandStatus | undefined;
    stdout: Captured;
    stderr: Captured;
  }
  | { kind: "spawn_failed"; message: string };

/** Waits for `p`, but no longer than `ms`; never rejects. */
function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.then(() => {}, () => {}),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ]).finally(() => clearTimeout(timer));
}

async function writeInput(stdin: WritableStream<Uint8Array>, input: Uint8Array): Promise<void> {
  const w = stdin.getWriter();
  try {
    await w.write(input);
    await w.close();
  } catch {
    // The hook exited or closed stdin without reading it all: that is its business.
    await w.abort().catch(() => {});
  }
}

/** Spawns the hook and supervises it to the end. Never rejects. */
export async function runGroup(opts: RunOptions): Promise<RunOutcome> {
  const deadline = performance.now() + opts.timeoutMs;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(opts.program, {
      args: opts.args,
      cwd: opts.cwd,
      env: opts.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (err) {
    return { kind: "spawn_failed", message: err instanceof Error ? err.message : String(err) };
  }
  const pid = child.pid;
  const killGroup = () => {
    try {
      Deno.kill(-pid, "SIGKILL");
    } catch { /* the group is already gone */ }
    try {
      child.kill("SIGKILL");
    } catch { /* the leader is already gone */ }
  };
  const untrack = opts.track(killGroup);
  const out: Capture = capture(child.stdout, opts.maxOutputBytes);
  const err: Capture = capture(child.stderr, opts.maxOutputBytes);
  let leader: Deno.CommandStatus | undefined;
  const status = child.status.then((s) => (leader = s));
  const writing = writeInput(child.stdin, opts.input);
  const finished = Promise.all([status, out.done, err.done, writing]).then(() => "done" as const);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"timeout">((r) => {
    timer = setTimeout(() => r("timeout"), Math.max(0, deadline - performance.now()));
  });
  try {
    const how = await Promise.race([finished, expired]);
    const leaderBeforeKill = leader;
    killGroup(); // background leftovers do not outlive the call
    if (how === "done" && leader) {
      return {
        kind: "exited",
        code: leader.code,
        signal: leader.signal,
        stdout: out.result(),
        stderr: err.result(),
      };
    }
    // Timed out: the group is dead; release the pipes (an escaped process may hold them).
    await Promise.all([out.cancel(), err.cancel()]);
    await settleWithin(Promise.all([status, writing]), 2000);
    return {
      kind: "timeout",
      leader: leaderBeforeKill,
      stdout: out.result(),
      stderr: err.result(),
    };
  } finally {
    clearTimeout(timer);
    untrack();
  }
}
