/**
 * Shared helpers for the command executor's tests: the fixture directory (made executable,
 * since a checkout may lose modes), and a liveness probe for processes a hook left behind.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type CommandExecutorOptions, createCommandExecutor } from "./mod.ts";

/** The fixtures' directory, absolute. */
export const TESTDATA = fileURLToPath(new URL("./testdata/", import.meta.url));

/** chmod +x every fixture. */
export async function fixturesExecutable(): Promise<void> {
  for await (const e of Deno.readDir(TESTDATA)) {
    if (e.isFile && e.name.endsWith(".sh")) await Deno.chmod(`${TESTDATA}${e.name}`, 0o755);
  }
}

/** An executor for fixture `script` (argv `./script ...args`, cwd = testdata). */
export function fixture(
  script: string,
  args: string[] = [],
  extra: Partial<CommandExecutorOptions> = {},
) {
  return createCommandExecutor({
    name: "fx",
    argv: [`./${script}`, ...args],
    cwd: TESTDATA,
    ...extra,
  });
}

/**
 * Is `pid` a live process (a zombie counts as dead)? Asks `ps`: reading `/proc` would need
 * `--allow-all`, which the test permissions do not grant.
 */
export async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stderr: "null",
  })
    .output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return out.success && stat !== "" && !stat.startsWith("Z");
}

/** Waits until `pid` is dead; false if it still lives after `boundMs`. */
export async function diesWithin(pid: number, boundMs: number): Promise<boolean> {
  const end = performance.now() + boundMs;
  while (performance.now() < end) {
    if (!(await alive(pid))) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !(await alive(pid));
}

/** Reads a pid a fixture wrote to `file`. */
export async function readPid(file: string): Promise<number> {
  const pid = Number((await Deno.readTextFile(file)).trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in ${file}`);
  return pid;
}
