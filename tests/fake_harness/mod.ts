/**
 * Fake `claude`, `cursor-agent`, `codex`, `gemini` and `opencode` executables for the tests
 * (python3 scripts, see `fake_harness.py`; each checks its argv against the flags its CLI
 * documents, `fake_cli.py`, and refuses others as the CLI does: a `rejected` entry, exit 2):
 * prepend {@linkcode fakeHarnessPath} to PATH, point `FAKE_HARNESS_LOG` at a
 * file, and read back what every invocation saw with {@linkcode readHarnessLog}.
 *
 * Environment the fakes read: `FAKE_HARNESS_LOG` (the log file), `FAKE_HARNESS_EXIT` (headless
 * exit code), `FAKE_HARNESS_SLEEP_MS` (headless delay), `FAKE_HARNESS_NO_ID=1` (headless result
 * without `session_id`), `FAKE_HARNESS_RESUME_FAIL=1` (an interactive `--resume` exits 1 at once),
 * `FAKE_HARNESS_IGNORE_TERM=1` (SIGTERM is ignored), `FAKE_HARNESS_TUI=1` (interactive mode is a
 * TUI in raw mode with bracketed paste on: it logs a `submit` per Enter outside a paste),
 * `FAKE_HARNESS_ACT=1` (interactive: an agent that acts — for each prompt, the boot prompt and
 * each later paste, it runs the first `` `the-loop advance --outcome O` `` the prompt spells out,
 * `the-loop` taken from its own PATH), `FAKE_HARNESS_ASK=<text>` (interactive: it runs
 * `the-loop ask --question <text>` once after booting). Each command it ran is logged as a `ran`
 * entry when it ended (see {@linkcode ranCommands}).
 *
 * What a headless run reports it used, as real Claude's `--output-format json` result does (the
 * fake `claude` only: cursor-agent documents none of it): `FAKE_HARNESS_COST=<usd>` →
 * `total_cost_usd`, `FAKE_HARNESS_TOKENS=<n>` → `usage` (its input, output, cache-write and
 * cache-read counts summing to n), `FAKE_HARNESS_TURNS=<n>` → `num_turns`; each absent when
 * unset. `FAKE_HARNESS_CAPPED=turns|budget`: the run is one its own cap stopped — it prints the
 * `error_max_turns` / `error_max_budget_usd` result (`is_error: true`, the usage above, the
 * session id) and exits 1. The caps a run was given are in its `boot` entry's `argv`
 * (`--max-turns N`, `--max-budget-usd X`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const DIR = dirname(fileURLToPath(import.meta.url));

/** One line of the fake's log. */
export interface HarnessLogEntry {
  /**
   * `boot` (an invocation), `input` (a line read in interactive mode), `eof` (interactive stdin
   * ended, so the fake exited by itself), `resume_failed`; the TUI (`FAKE_HARNESS_TUI=1`):
   * `tui_ready` (raw mode and bracketed paste on), `submit` (an Enter outside a paste),
   * `interrupted` (Ctrl-C outside a paste ended it); `ran` (a command `FAKE_HARNESS_ACT` or
   * `FAKE_HARNESS_ASK` had it run ended); `rejected` (an argv its CLI would refuse: `error`).
   */
  event:
    | "boot"
    | "input"
    | "eof"
    | "resume_failed"
    | "tui_ready"
    | "submit"
    | "interrupted"
    | "ran"
    | "rejected";
  pid: number;
  ts: number;
  /** The conversation id from `--session-id` / `--resume` (`null` when neither was given). */
  session: string | null;
  // boot
  program?: "claude" | "cursor-agent" | "codex" | "gemini" | "opencode";
  /** boot: the arguments after the program; ran: the command run (`the-loop` first). */
  argv?: string[];
  cwd?: string;
  /** rejected: what the CLI would have said. */
  error?: string;
  /** What headless mode read on stdin (`null` in interactive mode). */
  stdin?: string | null;
  /** `issue`: a command that makes a new conversation's id (`create-chat`, `run --command`). */
  mode?: "headless" | "interactive" | "issue";
  /** Its `/proc/self/environ` (`null` where there is none). */
  environ?: Record<string, string> | null;
  // input
  line?: string;
  // submit
  /** The text of each paste since the previous submission (as pasted: tmux sends LF as CR). */
  pastes?: string[];
  /** What arrived outside a paste since the previous submission (keys typed). */
  typed?: string;
  /** Whether every byte submitted was valid UTF-8. */
  utf8?: boolean;
  // ran
  /** The file the fake's PATH found for `argv[0]` (absent when none was). */
  path?: string;
  /** The command's exit code (127: no `the-loop` on the fake's PATH; -1: it timed out). */
  exit?: number;
  /** What the command printed. */
  stdout?: string;
  stderr?: string;
}

/** The `ran` entries: the commands the fake ran (`FAKE_HARNESS_ACT`, `FAKE_HARNESS_ASK`). */
export function ranCommands(entries: HarnessLogEntry[]): HarnessLogEntry[] {
  return entries.filter((e) => e.event === "ran");
}

/** The directory holding the fake executables, to put first on PATH (made executable here). */
export function fakeHarnessPath(): string {
  for (const name of ["claude", "cursor-agent", "codex", "gemini", "opencode"]) {
    Deno.chmodSync(join(DIR, name), 0o755);
  }
  return DIR;
}

/** `PATH` with the fakes first. */
export function pathWithFakes(): string {
  return `${fakeHarnessPath()}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
}

/** Every entry of the log at `file` (none when it does not exist yet). */
export async function readHarnessLog(file: string): Promise<HarnessLogEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as HarnessLogEntry);
}

/**
 * Waits until `done` holds for the log's entries (polling), and returns them; throws after
 * `timeoutMs` (a bound for a hung test, not a timing assertion) with the last entries seen.
 */
export async function waitForHarnessLog(
  file: string,
  done: (entries: HarnessLogEntry[]) => boolean,
  opts: { timeoutMs?: number; what?: string } = {},
): Promise<HarnessLogEntry[]> {
  const until = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    const entries = await readHarnessLog(file);
    if (done(entries)) return entries;
    if (Date.now() > until) {
      throw new Error(
        `timed out waiting for ${opts.what ?? "the fake harness log"}; it holds:\n` +
          entries.map((e) => JSON.stringify(e)).join("\n"),
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export async function processExists(pid: number): Promise<boolean> {
  // `ps`, not /proc: Deno refuses to read another process's /proc entries without --allow-all,
  // and an error taken for "gone" would let every "it ended" assertion pass
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return stat !== "" && !stat.startsWith("Z"); // a zombie has ended
}

/** Waits until the process is gone; throws after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (await processExists(pid)) {
    if (Date.now() > until) throw new Error(`process ${pid} is still running`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
