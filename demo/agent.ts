/**
 * The demo agent (`the-loop demo agent …`, hidden): a stand-in for Claude Code that takes the
 * argv the-loop gives `claude` and behaves as a harness does, with `agent_brain.ts` deciding what
 * to do with each prompt. `the-loop demo` writes a `claude` shim running it first on the daemon's
 * `PATH` (`shim.ts`), so the daemon's own `claude` adapter, runners and workspaces drive it.
 *
 * - **Interactive** (`claude … --session-id ID PROMPT`, `--resume ID [PROMPT]`; the tmux runner):
 *   a TUI in raw mode with bracketed paste on, so each prompt the runner pastes arrives whole
 *   between `ESC[200~` and `ESC[201~`; the boot prompt is its last argument. Its commands
 *   (`the-loop ask`, the claim) run at once, one at a time, their output shown in the pane.
 *   Ctrl-C or Ctrl-D outside a paste, or SIGTERM, ends it.
 * - **Headless** (`claude -p PROMPT [--resume ID] --output-format json …`; the process runner):
 *   one prompt, then the JSON result (`session_id`, `result`) on stdout. A verb run during the
 *   run would wait behind the very turn that runs it, so its commands are left to a detached
 *   `sh` that runs them once this run has ended (their output appended to the agent's log).
 *
 * `the-loop` is the one on its `PATH` (the daemon puts its launcher first there), with the
 * session's `THE_LOOP_SESSION`, `THE_LOOP_WORK_ITEM` and `THE_LOOP_CONTROL`. What it remembers
 * between prompts (and runs) is `the-loop-demo-agent.json` in the worktree's git directory, beside
 * its log `the-loop-demo-agent.log`, so nothing of it is in the worktree's status.
 *
 * @module
 */
import { join } from "node:path";
import { type AgentAction, type AgentState, freshState, react } from "./agent_brain.ts";

/** What the agent reads from its argv. */
export interface AgentArgs {
  headless: boolean;
  /** `--session-id` or `--resume` (headless without either: a new one). */
  sessionId: string | undefined;
  /** The prompt (`-p X`, the last positional, or what follows `--`); `""` when none. */
  prompt: string;
}

/** Claude's flags that take a value (the rest are switches). */
const VALUED = new Set([
  "-p",
  "--print",
  "--session-id",
  "--resume",
  "-r",
  "--output-format",
  "--permission-mode",
  "--model",
  "--effort",
  "--max-turns",
  "--max-budget-usd",
]);

/** Reads `claude`'s argv as the-loop's adapter writes it (`dispatch/harness/claude.ts`). */
export function parseAgentArgs(argv: readonly string[]): AgentArgs {
  let headless = false;
  let sessionId: string | undefined;
  let prompt = "";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      prompt = argv.slice(i + 1).join(" ");
      break;
    }
    if (a === "-p" || a === "--print") {
      headless = true;
      // `-p PROMPT`, or `-p … -- PROMPT` when the prompt starts with a dash
      if (i + 1 < argv.length && !argv[i + 1].startsWith("-")) prompt = argv[++i];
      continue;
    }
    if (a === "--session-id" || a === "--resume" || a === "-r") {
      sessionId = argv[++i];
      continue;
    }
    if (VALUED.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith("-")) continue;
    prompt = a;
  }
  return { headless, sessionId, prompt };
}

const enc = new TextEncoder();

/** Where the agent keeps its state and log: the worktree's git directory, else the cwd. */
async function homeOf(cwd: string): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["rev-parse", "--absolute-git-dir"],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  const dir = out?.success ? new TextDecoder().decode(out.stdout).trim() : "";
  return dir || cwd;
}

async function loadState(path: string): Promise<AgentState> {
  try {
    return { ...freshState(), ...JSON.parse(await Deno.readTextFile(path)) };
  } catch {
    return freshState();
  }
}

/** Runs a command, its output captured; never throws (a missing program is exit 127). */
async function run(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  try {
    const o = await new Deno.Command(program, {
      args,
      cwd,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: o.code, out: (dec.decode(o.stdout) + dec.decode(o.stderr)).trim() };
  } catch (e) {
    return { code: 127, out: `${program}: ${e instanceof Error ? e.message : e}` };
  }
}

/** The git identity of the agent's commits. */
const IDENTITY = {
  GIT_AUTHOR_NAME: "the-loop demo agent",
  GIT_AUTHOR_EMAIL: "demo-agent@example.invalid",
  GIT_COMMITTER_NAME: "the-loop demo agent",
  GIT_COMMITTER_EMAIL: "demo-agent@example.invalid",
};

/** Writes the agent's note and commits it (and the fixed test) in `cwd`. */
async function commit(
  cwd: string,
  a: Extract<AgentAction, { kind: "commit" }>,
): Promise<string> {
  const notes = join(cwd, "NOTES.md");
  const before = await Deno.readTextFile(notes).catch(() => "# Notes of the demo agent\n\n");
  await Deno.writeTextFile(notes, before + a.note);
  await Deno.mkdir(join(cwd, "tests"), { recursive: true });
  await Deno.writeTextFile(
    join(cwd, "tests", "login_test.sh"),
    "#!/bin/sh\n# no longer flaky: no clock in the test\nsh login.sh you\n",
  );
  await run("git", ["add", "-A"], cwd);
  const r = await run("git", ["-c", "commit.gpgsign=false", "commit", "-q", "-m", a.message], cwd, {
    ...IDENTITY,
  });
  if (r.code !== 0) return `demo agent: git commit failed: ${r.out}`;
  const head = await run("git", ["log", "-1", "--format=%h %s"], cwd);
  return `demo agent: committed ${head.out}`;
}

/** The argv of an action's `the-loop` command (`undefined`: not one). */
function verbArgv(a: AgentAction): string[] | undefined {
  if (a.kind === "ask") return ["ask", "--question", a.question];
  if (a.kind === "claim") return a.argv.slice(1);
  return undefined;
}

/**
 * Runs `the-loop <args>` later, after this process: a detached `sh` (its own process group, no
 * pipe to this run), its output appended to `log`.
 */
function runDetached(args: string[], cwd: string, log: string): void {
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'printf "\\n$ the-loop %s\\n" "$*" >>"$DEMO_AGENT_LOG"; ' +
      'exec the-loop "$@" >>"$DEMO_AGENT_LOG" 2>&1',
      "sh",
      ...args,
    ],
    cwd,
    env: { DEMO_AGENT_LOG: log },
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
}

/** One prompt, headless: act, then print the result object (see the module doc). */
async function headless(args: AgentArgs, cwd: string, home: string): Promise<number> {
  const statePath = join(home, "the-loop-demo-agent.json");
  const log = join(home, "the-loop-demo-agent.log");
  const sessionId = args.sessionId ?? crypto.randomUUID();
  const { state, actions } = react(await loadState(statePath), args.prompt);
  await Deno.writeTextFile(statePath, JSON.stringify(state));
  const said: string[] = [];
  for (const a of actions) {
    if (a.kind === "say") said.push(a.text);
    else if (a.kind === "commit") said.push(await commit(cwd, a));
    else {
      const argv = verbArgv(a)!;
      said.push(`demo agent: will run the-loop ${argv.join(" ")} once this run ends`);
      runDetached(argv, cwd, log);
    }
  }
  console.error(said.join("\n"));
  console.log(JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: said.join("\n"),
    session_id: sessionId,
    num_turns: 1,
  }));
  return 0;
}

/** Splits bytes arriving on a terminal into pastes (the prompts) and keys typed outside one. */
export class PasteReader {
  #buf = "";
  #inPaste = false;

  /** Feeds `text`; returns the whole pastes it completed and the keys typed outside them. */
  feed(text: string): { pastes: string[]; keys: string } {
    this.#buf += text;
    const pastes: string[] = [];
    let keys = "";
    for (;;) {
      if (!this.#inPaste) {
        const start = this.#buf.indexOf("\x1b[200~");
        if (start < 0) {
          // keep a possible start sequence cut in two
          const keep = this.#buf.lastIndexOf("\x1b");
          const cut = keep >= 0 && this.#buf.length - keep < 6 ? keep : this.#buf.length;
          keys += this.#buf.slice(0, cut);
          this.#buf = this.#buf.slice(cut);
          break;
        }
        keys += this.#buf.slice(0, start);
        this.#buf = this.#buf.slice(start + 6);
        this.#inPaste = true;
      }
      const end = this.#buf.indexOf("\x1b[201~");
      if (end < 0) break;
      // a terminal sends a pasted newline as CR
      pastes.push(this.#buf.slice(0, end).replace(/\r\n?/g, "\n"));
      this.#buf = this.#buf.slice(end + 6);
      this.#inPaste = false;
    }
    return { pastes, keys };
  }
}

/** The TUI (see the module doc): until Ctrl-C/Ctrl-D, the end of its input, or SIGTERM. */
async function interactive(args: AgentArgs, cwd: string, home: string): Promise<number> {
  const statePath = join(home, "the-loop-demo-agent.json");
  const tty = Deno.stdin.isTerminal();
  const write = (s: string) => Deno.stdout.writeSync(enc.encode(s.replaceAll("\n", "\r\n")));
  const say = (line: string) => write(`${line}\n`);
  if (tty) Deno.stdin.setRaw(true);
  write("\x1b[?2004h"); // bracketed paste on: each prompt arrives whole
  say(`demo agent (a stand-in for claude), conversation ${args.sessionId ?? "new"}`);
  say(`working in ${cwd}; Ctrl-C ends me`);
  let state = await loadState(statePath);
  let work = Promise.resolve();
  const handle = (prompt: string) => {
    work = work.then(async () => {
      const next = react(state, prompt);
      state = next.state;
      await Deno.writeTextFile(statePath, JSON.stringify(state));
      for (const a of next.actions) {
        if (a.kind === "say") say(a.text);
        else if (a.kind === "commit") say(await commit(cwd, a));
        else {
          const argv = verbArgv(a)!;
          say(`$ the-loop ${argv.join(" ")}`);
          const r = await run("the-loop", argv, cwd);
          say(`${r.out}${r.code === 0 ? "" : ` (exit ${r.code})`}`);
        }
      }
    }).catch((e) => {
      say(`demo agent: ${e instanceof Error ? e.message : e}`);
    });
  };
  const ended = Promise.withResolvers<void>();
  try {
    Deno.addSignalListener("SIGTERM", () => ended.resolve());
  } catch { /* no SIGTERM here */ }
  if (args.prompt) handle(args.prompt);
  const reader = new PasteReader();
  const dec = new TextDecoder();
  (async () => {
    for await (const chunk of Deno.stdin.readable) {
      const { pastes, keys } = reader.feed(dec.decode(chunk, { stream: true }));
      for (const p of pastes) handle(p);
      if (keys.includes("\x03") || keys.includes("\x04")) break;
    }
    ended.resolve();
  })().catch(() => ended.resolve());
  await ended.promise;
  write("\x1b[?2004l");
  if (tty) Deno.stdin.setRaw(false);
  return 0;
}

/** Runs the demo agent with `claude`'s argv; resolves to its exit code. */
export async function runDemoAgent(argv: readonly string[], cwd = Deno.cwd()): Promise<number> {
  const args = parseAgentArgs(argv);
  const home = await homeOf(cwd);
  return args.headless ? await headless(args, cwd, home) : await interactive(args, cwd, home);
}
