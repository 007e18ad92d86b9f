/**
 * How the workspaces run git: one small seam, {@linkcode GitRun}, that the real implementation
 * ({@linkcode denoGit}) backs with `Deno.Command` and a test wraps to record every argv while
 * still running real git. Every call gets `GIT_TERMINAL_PROMPT=0`, so a remote that wants a
 * password fails at once instead of waiting on a prompt nobody answers.
 *
 * @module
 */

/** One git invocation. `env` is added to the daemon's environment (never replaces it). */
export interface GitCall {
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Text written to git's stdin (e.g. `update-ref --stdin`); default: no stdin. */
  stdin?: string;
  signal?: AbortSignal;
}

/** What a git invocation did. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git once. Resolves with the exit code (a failing git is not an exception). */
export type GitRun = (call: GitCall) => Promise<GitResult>;

/** Options for {@linkcode denoGit}. */
export interface DenoGitOptions {
  /** The git executable; default `git` (looked up on PATH). */
  git?: string;
  /** Variables added to every call (tests pin identities and `HOME` here). */
  env?: Record<string, string>;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The real {@linkcode GitRun}: `Deno.Command`, output captured, no stdin. */
export function denoGit(opts: DenoGitOptions = {}): GitRun {
  const program = opts.git ?? "git";
  return async (call) => {
    const command = new Deno.Command(program, {
      args: call.args,
      cwd: call.cwd,
      env: { ...opts.env, GIT_TERMINAL_PROMPT: "0", ...call.env },
      stdin: call.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      signal: call.signal,
    });
    try {
      const child = command.spawn();
      if (call.stdin !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(encoder.encode(call.stdin));
        await writer.close();
      }
      const out = await child.output();
      return {
        code: out.code,
        stdout: decoder.decode(out.stdout),
        stderr: decoder.decode(out.stderr),
      };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return { code: 127, stdout: "", stderr: `${program}: not found on PATH` };
      }
      throw error;
    }
  };
}
