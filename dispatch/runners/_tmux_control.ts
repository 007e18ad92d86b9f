/**
 * One persistent tmux client in control mode (`tmux -C`), so that the commands of a burst of
 * deliveries cost a line on a pipe each instead of a `tmux` process each (fork, exec, connect:
 * milliseconds apiece, and a burst of 200 deliveries pays it 400 times).
 *
 * A control client has to be attached to a session: it makes its own, `the-loop-ctl-<pid>-<n>`,
 * whose pane runs a watchdog that exits (ending that session) once this process is gone, so a
 * daemon killed with SIGKILL leaves nothing behind for long. Commands are written one line each,
 * every argument double-quoted with tmux's escapes (`tmux_words.ts`: so no text is ever read as a command, a
 * variable, `~` or a format); tmux answers each command, in order, with a `%begin … %end` (or
 * `%error`) block whose flags say it came from this client. A sequence is sent as one line,
 * `a ; b ; c`: tmux answers each of its commands with a block of its own and, after one that
 * fails, runs (and answers) none of the rest, as a `tmux a ; b` process stops at the first
 * failure; so a sequence of n commands costs one round trip and its answer is complete after n
 * blocks or the first error. Lines outside a block (notifications) and blocks this client did not
 * ask for (a user's hooks) are ignored.
 *
 * When the client cannot be started (an old tmux, a server that refuses it), {@linkcode run}
 * says so with `undefined` and the caller runs the command as a process of its own; it tries
 * again after {@linkcode RETRY_MS}.
 *
 * @module
 */
import { deadline, DeadlineError } from "../../async/mod.ts";
import type { TmuxCli, TmuxOutput } from "./_tmux_cli.ts";
import { controlLine, controlSequence } from "./tmux_words.ts";

/** How long a control client that could not be started is not asked for again. */
export const RETRY_MS = 5_000;
/** An answer later than this ends the client (its answers could no longer be matched). */
export const ANSWER_TIMEOUT_MS = 15_000;

let instances = 0;
const ENC = new TextEncoder();

/** The answer to one line: `blocks` more to come unless one is an error. */
interface Waiter {
  blocks: number;
  /** What the blocks so far printed. */
  stdout: string;
  resolve: (out: TmuxOutput) => void;
  reject: (error: Error) => void;
}

/** A lazily started control-mode client on one tmux server. */
export class TmuxControl {
  readonly #cli: TmuxCli;
  readonly #env: () => Record<string, string>;
  readonly name = `the-loop-ctl-${Deno.pid}-${++instances}`;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #reading?: Promise<void>;
  #starting?: Promise<boolean>;
  #failedAt = -Infinity;
  #closed = false;
  /** The first block (the client's own `new-session`) was read. */
  #attached = false;
  readonly #waiters: Waiter[] = [];

  /** `env`: the client's environment (and the server's, when this client starts it). */
  constructor(cli: TmuxCli, env: () => Record<string, string>) {
    this.#cli = cli;
    this.#env = env;
  }

  /**
   * Runs a command sequence; `undefined` when no control client is available (nothing was sent:
   * run it another way). Rejects when the client died with the command sent (its fate unknown).
   * `answers`: the blocks the line is answered with when nothing fails — one a command unless a
   * command runs others that answer too (`if-shell` and the commands of its branch).
   */
  async run(
    commands: string[][],
    opts: { answers?: number } = {},
  ): Promise<TmuxOutput | undefined> {
    if (!(await this.#ready())) return undefined;
    if (commands.length === 0) return { code: 0, stdout: "", stderr: "" };
    return await this.#send(controlSequence(commands), opts.answers ?? commands.length);
  }

  /** Ends the client and its session; later calls to {@linkcode run} return `undefined`. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#starting;
    if (starting) await starting.catch(() => false);
    await this.#stop();
  }

  #ready(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    // nothing is sent before the client's own new-session is answered: tmux reads a control
    // client's input as soon as it attaches, so a line sent early could be answered first
    if (this.#starting) return this.#starting;
    if (this.#writer) return Promise.resolve(true);
    if (performance.now() - this.#failedAt < RETRY_MS) return Promise.resolve(false);
    return this.#starting ??= this.#start().finally(() => (this.#starting = undefined));
  }

  async #start(): Promise<boolean> {
    const watchdog = `while kill -0 ${Deno.pid} 2>/dev/null; do sleep 2; done`;
    const args = [
      ...(this.#cli.socket ? ["-L", this.#cli.socket] : []),
      "-C",
      "new-session",
      "-s",
      this.name,
      "-x",
      "80",
      "-y",
      "24",
      "--",
      "sh",
      "-c",
      watchdog,
    ];
    try {
      this.#child = new Deno.Command("tmux", {
        args,
        env: this.#env(),
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
    } catch {
      this.#failedAt = performance.now();
      return false;
    }
    this.#attached = false;
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read(this.#child.stdout);
    // the new-session itself is answered first
    const first = await this.#expect().catch(() => undefined);
    if (first?.code === 0 && !this.#closed) return true;
    this.#failedAt = performance.now();
    await this.#stop();
    return false;
  }

  /** The answer of the next line: `blocks` blocks, or fewer ending in an error. */
  #expect(blocks = 1): Promise<TmuxOutput> {
    return new Promise((resolve, reject) =>
      this.#waiters.push({ blocks, stdout: "", resolve, reject })
    );
  }

  /** Writes one line and resolves with its answer (the answers come in the order of the lines). */
  #ask(
    writer: WritableStreamDefaultWriter<Uint8Array>,
    line: string,
    blocks = 1,
  ): Promise<TmuxOutput> {
    const answer = this.#expect(blocks);
    writer.write(ENC.encode(`${line}\n`)).catch(() => {});
    return answer;
  }

  /** Sends one line of `blocks` commands (`a ; b ; …`) and resolves with its whole answer. */
  async #send(line: string, blocks = 1): Promise<TmuxOutput> {
    const writer = this.#writer;
    if (!writer) throw new Error("the tmux control client is gone");
    const answer = this.#ask(writer, line, blocks);
    // a missing answer would leave every later one matched to the wrong command: end the client
    // (its waiters fail, the runner falls back to processes, a fresh client comes later)
    try {
      return await deadline(answer, ANSWER_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof DeadlineError)) throw err;
      try {
        this.#child?.kill("SIGKILL");
      } catch { /* already gone */ }
      throw new Error(`tmux did not answer within ${ANSWER_TIMEOUT_MS} ms`);
    }
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    let block: string[] | undefined;
    let ours = false;
    let rest = "";
    try {
      for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
        rest += chunk;
        let nl: number;
        while ((nl = rest.indexOf("\n")) >= 0) {
          const line = rest.slice(0, nl);
          rest = rest.slice(nl + 1);
          if (line.startsWith("%begin ")) {
            block = [];
            // `%begin <time> <number> <flags>`: flags 1 = a command this client sent
            ours = !this.#attached || line.split(" ")[3] === "1";
            this.#attached = true;
          } else if (block && (line.startsWith("%end ") || line.startsWith("%error "))) {
            const ok = line.startsWith("%end ");
            const text = block.join("\n");
            block = undefined;
            if (!ours) continue;
            const waiter = this.#waiters[0];
            if (!waiter) continue;
            if (ok && text) waiter.stdout += `${text}\n`;
            // after a failure tmux runs none of the line's later commands: the answer is complete
            if (ok && --waiter.blocks > 0) continue;
            this.#waiters.shift();
            waiter.resolve({
              code: ok ? 0 : 1,
              stdout: waiter.stdout,
              stderr: ok ? "" : text.trim(),
            });
          } else if (block) block.push(line);
        }
      }
    } catch { /* the client went away: below */ }
    this.#writer = undefined;
    this.#failedAt = performance.now();
    for (const w of this.#waiters.splice(0)) {
      w.reject(new Error("the tmux control client exited with a command in flight"));
    }
  }

  async #stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    const writer = this.#writer;
    this.#writer = undefined;
    // ending the session first: the client then exits on its own (and a killed session detaches
    // its client, so the answer may be the client's exit instead)
    if (writer) {
      const kill = this.#ask(writer, controlLine(["kill-session", "-t", `=${this.name}`]));
      // its answer, or the client's exit: the reader's end fails every waiter, this one too
      await kill.catch(() => {});
    }
    await writer?.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await this.#reading;
  }
}
