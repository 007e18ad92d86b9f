/**
 * The one way the tmux runner talks to tmux: `tmux [-L socket] <command> [; <command>…]`, each
 * argument its own argv element (no shell), escaped against tmux's own command parsing.
 *
 * @module
 */

/** Where tmux commands go. */
export interface TmuxCli {
  /** `tmux -L <socket>` (a private server, for tests); the default server when absent. */
  socket?: string;
  /**
   * The whole environment of the tmux client (and of the server, when this starts it; `PATH`
   * is the daemon's when it is not given): the daemon's own environment is not inherited, so a
   * server the-loop starts holds none of its secrets in `show-environment -g`.
   */
  env: Record<string, string>;
  /** A persistent control-mode client; commands go through it when it is available. */
  control?: {
    /** `answers`: the blocks the line answers with when nothing fails (one per command). */
    run(commands: string[][], opts?: { answers?: number }): Promise<TmuxOutput | undefined>;
  };
}

/** What one tmux invocation printed. */
export interface TmuxOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** The message when `tmux` is not on PATH. */
export const TMUX_MISSING = "tmux is not installed: install it, or set routing.runner: process";

/**
 * tmux reads an argument that ends in `;` as the end of a command (and `\;` as a literal `;`),
 * even after `--`: a prompt ending in `;` would otherwise be cut short and whatever followed it
 * run as a tmux command. Escaped here, every argument reaches its program exactly as given.
 */
export function escapeArg(arg: string): string {
  return arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
}

/** The argv (after `tmux`) of a command sequence. */
export function tmuxArgv(cli: TmuxCli, commands: string[][]): string[] {
  const argv = cli.socket ? ["-L", cli.socket] : [];
  commands.forEach((cmd, i) => {
    if (i > 0) argv.push(";");
    argv.push(...cmd.map(escapeArg));
  });
  return argv;
}

/** The environment of a tmux client of `cli`: `cli.env` alone (and the daemon's `PATH`). */
export function clientEnv(cli: TmuxCli): Record<string, string> {
  const path = Deno.env.get("PATH");
  const env: Record<string, string> = { ...(path === undefined ? {} : { PATH: path }), ...cli.env };
  // inside a tmux pane these would point the client at the daemon's own server and pane
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/**
 * Runs one tmux command sequence — through the control client when there is one, else as a
 * `tmux` process, with `stdin` fed to it (`load-buffer -`). Never rejects on tmux's refusal.
 */
export async function tmux(
  cli: TmuxCli,
  commands: string[][],
  opts: { stdin?: string; signal?: AbortSignal } = {},
): Promise<TmuxOutput> {
  if (opts.stdin === undefined && cli.control) {
    opts.signal?.throwIfAborted();
    const out = await cli.control.run(commands);
    if (out) return out;
  }
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("tmux", {
      args: tmuxArgv(cli, commands),
      env: clientEnv(cli),
      clearEnv: true,
      stdin: opts.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      signal: opts.signal,
    }).spawn();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new Error(TMUX_MISSING);
    throw err;
  }
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin)).catch(() => {});
    await w.close().catch(() => {});
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr).trim() };
}

/** Like {@linkcode tmux}, but a non-zero exit throws `tmux <command> failed: <stderr>`. */
export async function tmuxOk(
  cli: TmuxCli,
  commands: string[][],
  opts: { stdin?: string; signal?: AbortSignal } = {},
): Promise<string> {
  const out = await tmux(cli, commands, opts);
  if (out.code !== 0) {
    const what = commands.map((c) => c[0]).join(" + ");
    throw new Error(`tmux ${what} failed (exit ${out.code}): ${out.stderr || "no message"}`);
  }
  return out.stdout;
}
