/**
 * Runs one command hook process in its own process group under a single deadline that covers
 * spawn, the stdin write, the run and the output drain. Whatever is left of it when the call
 * settles (a timeout, or background processes after a normal exit) is killed with SIGKILL: the
 * group, and on Linux every process of its tree, `setsid` escapees included (`_sweep.ts` says
 * exactly what is and is not found).
 *
 * The group comes from `Deno.Command`'s `detached` option, which makes the child a session and
 * process-group leader (setsid) before exec: no launcher program is needed.
 *
 * @module
 */
import { messageOf } from "../../../errors.ts";
import { Deadline, DeadlineError, settlesWithin } from "../../../async/mod.ts";
import { type Capture, capture, type Captured } from "./_capture.ts";
import { CALL_MARKER, killTree, newCallId } from "./_sweep.ts";

/** Options for {@linkcode runGroup}. */
export interface RunOptions {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input: Uint8Array;
  /** Cap on stderr, and on stdout unless `maxStdoutBytes` is lower. */
  maxOutputBytes: number;
  /** Cap on stdout (the answer); default `maxOutputBytes`. */
  maxStdoutBytes?: number;
  timeoutMs: number;
  /** Registers a kill switch for `close()`; the returned function unregisters it. */
  track(kill: () => Promise<void>): () => void;
  /**
   * Takes the sweep of a call that ended normally, still under way (`close()` awaits it): the
   * answer is not held back for it.
   */
  background(sweep: Promise<void>): void;
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
  const deadline = new Deadline(opts.timeoutMs);
  const callId = newCallId();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(opts.program, {
      args: opts.args,
      cwd: opts.cwd,
      env: { ...opts.env, [CALL_MARKER]: callId },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (err) {
    deadline.clear();
    return { kind: "spawn_failed", message: messageOf(err) };
  }
  const pid = child.pid;
  let leader: Deno.CommandStatus | undefined;
  let sweeping: Promise<void> | undefined;
  // Freezes the group at once (nothing in it forks any more), then finds and kills the tree.
  const killAll = () =>
    sweeping ??= killTree({ group: pid, root: leader ? undefined : pid, callId }).finally(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* the leader is already gone */ }
    });
  const untrack = opts.track(killAll);
  const out: Capture = capture(
    child.stdout,
    Math.min(opts.maxOutputBytes, opts.maxStdoutBytes ?? opts.maxOutputBytes),
  );
  const err: Capture = capture(child.stderr, opts.maxOutputBytes);
  const status = child.status.then((s) => (leader = s));
  const writing = writeInput(child.stdin, opts.input);
  const finished = Promise.all([status, out.done, err.done, writing]);
  try {
    const how = await deadline.race(finished).then(
      () => "done" as const,
      (e) => {
        if (e instanceof DeadlineError) return "timeout" as const;
        throw e;
      },
    );
    const leaderBeforeKill = leader;
    // background leftovers, setsid ones included, do not outlive the call
    if (how === "done" && leader) {
      opts.background(killAll());
      return {
        kind: "exited",
        code: leader.code,
        signal: leader.signal,
        stdout: out.result(),
        stderr: err.result(),
      };
    }
    // Timed out: kill it all, then release the pipes (an escaped process may hold them).
    await killAll();
    await Promise.all([out.cancel(), err.cancel()]);
    await settlesWithin(Promise.all([status, writing]), 2000);
    return {
      kind: "timeout",
      leader: leaderBeforeKill,
      stdout: out.result(),
      stderr: err.result(),
    };
  } finally {
    deadline.clear();
    untrack();
  }
}
