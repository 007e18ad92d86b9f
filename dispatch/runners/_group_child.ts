/**
 * The one way the runners start a program they bound: an argv (never a shell), stdin closed,
 * stdout and stderr piped, the whole environment given (nothing of the daemon's — its secrets — is
 * inherited), in its own process group so that a timeout or a close can end the whole tree
 * (`_kill_tree.ts`). Shared by the headless harness run (`_logged_run.ts`) and `boundedRun`.
 *
 * @module
 */

/** What to start. */
export interface GroupChildOptions {
  program: string;
  args: string[];
  cwd: string;
  /** The whole environment. */
  env: Record<string, string>;
}

/** Starts it; throws what `Deno.Command#spawn` throws (see {@linkcode notStartedWhy}). */
export function spawnGroupChild(o: GroupChildOptions): Deno.ChildProcess {
  return new Deno.Command(o.program, {
    args: o.args,
    cwd: o.cwd,
    env: o.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
}

/** Why `program` did not start, for a message: not installed, or the system's reason. */
export function notStartedWhy(program: string, err: unknown): string {
  return err instanceof Deno.errors.NotFound
    ? `${program} is not installed or not on PATH`
    : String(err instanceof Error ? err.message : err);
}
