/**
 * Spawns the real CLI exactly as `deno task the-loop` does: the flags are read from
 * `deno.json`'s `the-loop` task, so the tests run with the permissions users get.
 *
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };

const ROOT = new URL("..", import.meta.url).pathname;

/** The variables every spawned CLI keeps: PATH, and Deno's cache so nothing is re-transpiled. */
export function baseEnv(home: string): Record<string, string> {
  const origHome = Deno.env.get("HOME") ?? "/root";
  return {
    HOME: home,
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${origHome}/.cache/deno`,
  };
}

/** The argv after `deno` in the `the-loop` task, with `main.ts` made absolute. */
export function taskArgs(): string[] {
  const words = denoJson.tasks["the-loop"].split(/\s+/);
  if (words[0] !== "deno") throw new Error("the-loop task must start with 'deno'");
  return words.slice(1).map((w) => (w === "main.ts" ? `${ROOT}main.ts` : w));
}

/** What a finished CLI run printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@linkcode cli}. */
export interface CliOptions {
  /** Working directory; default: a directory with no `.the-loop/` in it. */
  cwd?: string;
  /** Environment overrides; `HOME` defaults to `cwd` so `~/.the-loop` never leaks in. */
  env?: Record<string, string>;
  /** Text fed to stdin. */
  stdin?: string;
}

/** Runs `the-loop <args>` to completion. */
export async function cli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const cwd = opts.cwd ?? Deno.makeTempDirSync({ prefix: "the-loop-cli-" });
  const env = { ...baseEnv(cwd), ...opts.env };
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), ...args],
    cwd,
    env,
    clearEnv: true,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = cmd.spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Starts `the-loop <args>` and leaves it running (for `--follow` and daemons). */
export function spawnCli(args: string[], opts: CliOptions = {}): Deno.ChildProcess {
  const cwd = opts.cwd ?? Deno.makeTempDirSync({ prefix: "the-loop-cli-" });
  return new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), ...args],
    cwd,
    env: { ...baseEnv(cwd), ...opts.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
