/**
 * What a session gets so the agent can run `the-loop advance|ask|reply` from inside it and reach
 * the running daemon: its own variables ({@linkcode sessionEnvFor}, the runners add them to the
 * harness's environment at every launch) and a `the-loop` command on its `PATH`
 * ({@linkcode writeLauncher}).
 *
 * | variable             | value                                                             |
 * | -------------------- | ----------------------------------------------------------------- |
 * | `THE_LOOP_SESSION`   | the capability: base64url HMAC-SHA256(session key, its ref)       |
 * | `THE_LOOP_WORK_ITEM` | its work item's ref (`the-loop advance` with no REF acts on it)    |
 * | `THE_LOOP_CONTROL`   | the daemon's control socket (`<state.root>/poll.sock`, …)         |
 * | `PATH`               | `<state.root>/bin` first, then the PATH the harness gets anyway    |
 *
 * None of them is a secret of the daemon's: the capability lets a session act on its own work
 * item only, and only through the daemon (`docs/agent-commands.md`).
 *
 * The launcher, `<state.root>/bin/the-loop`: a compiled the-loop is a symlink to the binary
 * itself (`Deno.execPath()`); from a source checkout (the deno CLI runs it) an `sh` script
 * `exec '<deno>' run --cached-only --no-prompt … --config '<deno.json>' '<main.ts>' "$@"` with
 * the same permissions as the `the-loop` task. Either is written under a temporary name and
 * renamed into place.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { capabilityFor } from "../daemon/mod.ts";
import { isDenoCli, taskFlags } from "../lifecycle/mod.ts";
import { writeFileAtomic } from "../state/atomic.ts";

/** The launcher's folder under `state.root`. */
export const LAUNCHER_DIR = "bin";
/** The launcher's name. */
export const LAUNCHER_NAME = "the-loop";

/** Inputs of {@linkcode sessionEnvFor}. */
export interface SessionEnvOptions {
  /** The daemon's control socket. */
  socketPath: string;
  /** The session key (`daemon/session_key.ts`). */
  key: Uint8Array;
  /** The launcher's folder (`<state.root>/bin`), put first on `PATH`. */
  binDir: string;
  /** The PATH the harness gets otherwise (its environment's); none: the launcher's folder alone. */
  basePath?: string;
}

/** A session's own variables, for the work item `ref`: see the module doc. */
export function sessionEnvFor(o: SessionEnvOptions): (ref: string) => Record<string, string> {
  const path = o.basePath ? `${o.binDir}:${o.basePath}` : o.binDir;
  // asked at every launch and every headless delivery: each ref's capability is made once
  const made = new Map<string, string>();
  const capability = (ref: string) => {
    let c = made.get(ref);
    if (c === undefined) {
      if (made.size >= 4096) made.clear();
      made.set(ref, c = capabilityFor(o.key, ref));
    }
    return c;
  };
  return (ref) => ({
    THE_LOOP_SESSION: capability(ref),
    THE_LOOP_WORK_ITEM: ref,
    THE_LOOP_CONTROL: o.socketPath,
    PATH: path,
  });
}

/** `s` as one `sh` word, in single quotes. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Inputs of {@linkcode writeLauncher}; the defaults are this process's. */
export interface LauncherOptions {
  /** `<state.root>/bin`. */
  binDir: string;
  /** Default `Deno.execPath()`. */
  execPath?: string;
  /** The checkout's `main.ts`; default the one beside this folder. */
  mainPath?: string;
  /** `DENO_DIR` to run with (the daemon's, when set: the cache `--cached-only` reads). */
  denoDir?: string;
}

/** The `sh` script that runs the-loop from a source checkout. */
export function launcherScript(o: { deno: string; mainPath: string; denoDir?: string }): string {
  const config = join(dirname(o.mainPath), "deno.json");
  const words = [
    shellQuote(o.deno),
    "run",
    ...taskFlags(),
    "--config",
    shellQuote(config),
    shellQuote(o.mainPath),
    '"$@"',
  ];
  const env = o.denoDir ? `DENO_DIR=${shellQuote(o.denoDir)} ` : "";
  return [
    "#!/bin/sh",
    "# the-loop, from its source checkout: written by the daemon at start (do not edit)",
    `${env}exec ${words.join(" ")}`,
    "",
  ].join("\n");
}

/**
 * Writes `<binDir>/the-loop` (see the module doc), replacing what was there; its path.
 */
export async function writeLauncher(o: LauncherOptions): Promise<string> {
  const execPath = o.execPath ?? Deno.execPath();
  const path = join(o.binDir, LAUNCHER_NAME);
  await Deno.mkdir(o.binDir, { recursive: true });
  if (!isDenoCli(execPath)) {
    const tmp = join(o.binDir, `.${LAUNCHER_NAME}.${crypto.randomUUID().slice(0, 8)}.tmp`);
    await Deno.symlink(execPath, tmp);
    try {
      await Deno.rename(tmp, path);
    } catch (error) {
      await Deno.remove(tmp).catch(() => {});
      throw error;
    }
    return path;
  }
  const mainPath = o.mainPath ?? fileURLToPath(new URL("../main.ts", import.meta.url));
  const denoDir = o.denoDir ?? Deno.env.get("DENO_DIR");
  await writeFileAtomic(path, launcherScript({ deno: execPath, mainPath, denoDir }), {
    mode: 0o755,
  });
  return path;
}
