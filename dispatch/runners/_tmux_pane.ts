/**
 * What the tmux runner does to one session's pane: read its state and process, start a program
 * in it (a new session, or a respawn of the pane), and paste a prompt into it through a buffer
 * named for that session and that delivery alone.
 *
 * Targets are written `=<name>:` — an exact session name (a bare `loop-x-1` would also match
 * `loop-x-15` by prefix when `loop-x-1` does not exist) and its current window's pane.
 *
 * @module
 */
import { tmux, type TmuxCli, tmuxOk } from "./_tmux_cli.ts";
import { GUARDED_PASTE_ANSWERS, guardedPaste, paneOf, saidDead } from "./tmux_words.ts";

/** `alive` (the process runs), `dead` (kept by remain-on-exit), `missing` (no such session). */
export type PaneState = "alive" | "dead" | "missing";

/** The state of the session's pane. */
export async function paneState(
  cli: TmuxCli,
  name: string,
  signal?: AbortSignal,
): Promise<PaneState> {
  const out = await tmux(cli, [["list-panes", "-t", paneOf(name), "-F", "#{pane_dead}"]], {
    signal,
  });
  if (out.code !== 0) return "missing";
  return out.stdout.split("\n").some((l) => l.trim() === "0") ? "alive" : "dead";
}

/** The pid of the pane's running process (`undefined` when dead or missing). */
export async function panePid(cli: TmuxCli, name: string): Promise<number | undefined> {
  const format = "#{pane_dead} #{pane_pid}";
  const out = await tmux(cli, [["list-panes", "-t", paneOf(name), "-F", format]]);
  for (const line of out.stdout.split("\n")) {
    const [dead, pid] = line.trim().split(" ");
    if (dead === "0" && Number(pid) > 0) return Number(pid);
  }
  return undefined;
}

/** What {@linkcode startIn} starts. */
export interface Start {
  name: string;
  cwd: string;
  /** The program and its arguments, each its own element (no shell). */
  argv: string[];
  /**
   * Set in the pane's environment (`-e NAME=value` on `new-session` and `respawn-pane`), over
   * the server's global one.
   */
  env?: Record<string, string>;
  /** Set `remain-on-exit` on a new session (in the same command sequence as its creation). */
  remainOnExit: boolean;
  warn: (message: string) => void;
  signal?: AbortSignal;
}

/** The `-e NAME=value` words that set `env` in a pane (`new-session`, `respawn-pane`). */
export function envWords(env: Record<string, string> = {}): string[] {
  return Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
}

/** Runs `argv` in the session: respawns its pane when the session exists, else creates it. */
export async function startIn(cli: TmuxCli, o: Start): Promise<void> {
  const env = envWords(o.env);
  if ((await paneState(cli, o.name, o.signal)) !== "missing") {
    await tmuxOk(
      cli,
      [["respawn-pane", "-k", "-t", paneOf(o.name), "-c", o.cwd, ...env, "--", ...o.argv]],
      { signal: o.signal },
    );
    return;
  }
  const create = ["new-session", "-d", "-s", o.name, "-c", o.cwd, "-x", "200", "-y", "50"];
  create.push(...env, "--");
  // one sequence, so a harness that dies at once still leaves its pane (and its last words)
  const keep = o.remainOnExit ? [["set-option", "-t", paneOf(o.name), "remain-on-exit", "on"]] : [];
  const out = await tmux(cli, [[...create, ...o.argv], ...keep], { signal: o.signal });
  if (out.code === 0) return;
  if ((await paneState(cli, o.name, o.signal)) === "missing") {
    throw new Error(`tmux could not start session ${o.name}: ${out.stderr || "no message"}`);
  }
  o.warn(`tmux rejected remain-on-exit for ${o.name}: ${out.stderr}`);
}

/**
 * Loads `prompt` into a buffer of its own (`<name>-<uuid>`: no file, no name shared with another
 * session or delivery) and, when the pane's process runs, pastes it deleting the buffer and
 * presses Enter; `false` (nothing pasted, no buffer left) when the pane is dead.
 */
export async function pasteInto(
  cli: TmuxCli,
  name: string,
  prompt: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const buffer = `${name}-${crypto.randomUUID()}`;
  const paste = guardedPaste(name, buffer);
  // one command sequence (it stops at the first that fails): through the control client the
  // text travels as one quoted word, else on a tmux process's stdin
  try {
    signal?.throwIfAborted();
    const viaControl = await cli.control?.run([
      ["set-buffer", "-b", buffer, "--", prompt],
      paste,
    ], { answers: 1 + GUARDED_PASTE_ANSWERS });
    if (viaControl) {
      if (viaControl.code !== 0) {
        throw new Error(`tmux set-buffer + paste-buffer + send-keys failed: ${viaControl.stderr}`);
      }
      return !saidDead(viaControl.stdout);
    }
    const out = await tmuxOk(cli, [["load-buffer", "-b", buffer, "-"], paste], {
      stdin: prompt,
      signal,
    });
    return !saidDead(out);
  } catch (err) {
    // a paste that failed leaves its buffer behind (a delivered one was deleted by `-d`)
    await tmux(cli, [["delete-buffer", "-b", buffer]]).catch(() => {});
    throw err;
  }
}

/**
 * Pastes `prompt` into the pane and presses Enter when the pane's process runs; `false` (and
 * nothing pasted, no buffer left) when the pane is dead or missing. Through the control client
 * this is one round trip: the pane's listing (a missing session stops the sequence there, before
 * anything is loaded), the buffer, then the guarded paste and Enter; without one, it is
 * {@linkcode paneState} then {@linkcode pasteInto}.
 */
export async function pasteIfAlive(
  cli: TmuxCli,
  name: string,
  prompt: string,
  signal?: AbortSignal,
): Promise<boolean> {
  signal?.throwIfAborted();
  const control = cli.control;
  const buffer = `${name}-${crypto.randomUUID()}`;
  try {
    const out = await control?.run([
      ["list-panes", "-t", paneOf(name), "-F", "#{pane_dead}"],
      ["set-buffer", "-b", buffer, "--", prompt],
      guardedPaste(name, buffer),
    ], { answers: 2 + GUARDED_PASTE_ANSWERS });
    if (!out) {
      if ((await paneState(cli, name, signal)) !== "alive") return false;
      return await pasteInto(cli, name, prompt, signal);
    }
    // the listing prints a line for each pane: nothing printed is a session that is not there
    if (out.code !== 0 && out.stdout === "") return false;
    if (out.code !== 0) throw new Error(`tmux set-buffer + paste-buffer failed: ${out.stderr}`);
    return !saidDead(out.stdout);
  } catch (err) {
    // a paste that failed leaves its buffer behind (a delivered one was deleted by `-d`)
    await tmux(cli, [["delete-buffer", "-b", buffer]]).catch(() => {});
    throw err;
  }
}
