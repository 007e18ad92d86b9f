/**
 * One tmux control-mode client attached to one session for one web terminal:
 * `tmux -u <tmuxArgs> -C attach [-r] -t =<session>`. It runs commands (a line each, its words
 * quoted, answered in order by blocks this client's flags mark as its own), hands on every
 * `%output` and notification, and ends when asked (its stdin closed: tmux detaches the client),
 * when the session ends (`%exit`), or when tmux does; {@linkcode ControlAttach.ended} says why.
 * Nothing is sent before the attach itself is answered (tmux reads a control client's input as
 * soon as it attaches: a line sent early could be answered first and take the attach's place).
 *
 * @module
 */
import { deadline } from "../../async/mod.ts";
import { tmuxControlSequence } from "../../dispatch/mod.ts";
import { type ControlEvent, ControlReader } from "./_control_stream.ts";

/** How long a client whose stdin was closed has to exit before it is killed. */
const EXIT_GRACE_MS = 3_000;
/** An answer later than this ends the client (later answers could no longer be matched). */
const ANSWER_TIMEOUT_MS = 15_000;
const ENC = new TextEncoder();
const DEC = new TextDecoder();

/** What one command line printed. */
export interface ControlAnswer {
  ok: boolean;
  /** The lines of its blocks, as text. */
  stdout: string;
  /** The error block's text when one failed. */
  error: string;
}

/** Options of {@linkcode ControlAttach.open}. */
export interface AttachOptions {
  /** `tmux` options naming the server: `["-L", socket]`, `["-S", path]`, or none (the default). */
  tmuxArgs: string[];
  session: string;
  /** `attach -r`: tmux's own read-only client (the page's input is dropped before it anyway). */
  readOnly: boolean;
  /** The tmux client's whole environment. */
  env: Record<string, string>;
  /** Every `%output` and notification, in order (answers go to their commands). */
  onEvent: (event: ControlEvent) => void;
}

/** Options of {@linkcode ControlAttach.run}. */
export interface RunOptions {
  /**
   * The blocks the line is answered with when nothing fails (one a command unless one runs
   * others); default one a command.
   */
  answers?: number;
  /**
   * Called as the answer is read, before any later line of the client's output is handed on
   * (the promise resolves a tick later, when a later `%output` may already be out).
   */
  onAnswered?: (answer: ControlAnswer) => void;
}

interface Waiter {
  onAnswered?: (answer: ControlAnswer) => void;
  blocks: number;
  stdout: string[];
  resolve: (a: ControlAnswer) => void;
  reject: (e: Error) => void;
}

/** A control-mode client attached to one session. */
export class ControlAttach {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiters: Waiter[] = [];
  readonly #onEvent: (event: ControlEvent) => void;
  #attached = false;
  #open = true;
  #reason = "the tmux client exited";
  /** What tmux answered the attach with, when it refused it. */
  #refusal = "";
  /** Resolves once the attach is answered (true) or the client is gone first (false). */
  readonly #ready: Promise<boolean>;
  #markReady!: (ok: boolean) => void;
  /** Resolves, with why, once the client has exited and its output is read. */
  readonly ended: Promise<string>;

  private constructor(o: AttachOptions) {
    this.#onEvent = o.onEvent;
    this.#ready = new Promise((r) => (this.#markReady = r));
    const args = ["-u", ...o.tmuxArgs, "-C", "attach", ...(o.readOnly ? ["-r"] : [])];
    this.#child = new Deno.Command("tmux", {
      args: [...args, "-t", `=${o.session}`],
      env: o.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const stderr = new Response(this.#child.stderr).text().catch(() => "");
    this.ended = this.#read(this.#child.stdout).then(async () => {
      const status = await this.#child.status;
      const err = (await stderr).trim();
      if (!this.#attached) {
        this.#reason = `tmux could not attach to session ${o.session}: ${
          this.#refusal || err || `exit ${status.code}`
        }`;
      }
      return this.#reason;
    });
  }

  /**
   * Starts the client and waits until it is attached; throws (saying what tmux said) when it
   * cannot attach — no tmux, no server, no such session.
   */
  static async open(o: AttachOptions): Promise<ControlAttach> {
    let attach: ControlAttach;
    try {
      attach = new ControlAttach(o);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new Error("tmux is not installed: the web terminal needs it");
      }
      throw err;
    }
    if (await attach.#ready) return attach;
    throw new Error(await attach.ended);
  }

  /** Runs a command sequence as one line (tmux stops at the first failure): its answer. */
  run(commands: string[][], opts: RunOptions = {}): Promise<ControlAnswer> {
    if (!this.#open) return Promise.reject(new Error("the tmux control client is gone"));
    const blocks = opts.answers ?? commands.length;
    const answer = new Promise<ControlAnswer>((resolve, reject) =>
      this.#waiters.push({ blocks, stdout: [], resolve, reject, onAnswered: opts.onAnswered })
    );
    this.#writer.write(ENC.encode(`${tmuxControlSequence(commands)}\n`)).catch(() => {});
    return deadline(answer, ANSWER_TIMEOUT_MS).catch((err) => {
      // a missing answer would leave every later one matched to the wrong command
      this.#kill();
      throw err;
    });
  }

  /** Detaches (closes the client's stdin), waits for it to exit (killing it past a grace). */
  async close(): Promise<void> {
    this.#open = false;
    await this.#writer.close().catch(() => {});
    try {
      await deadline(this.#child.status, EXIT_GRACE_MS);
    } catch {
      this.#kill();
    }
    await this.ended;
  }

  #kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const reader = new ControlReader();
    try {
      for await (const chunk of stdout) {
        for (const event of reader.push(chunk)) this.#dispatch(event);
      }
    } catch { /* the client went away: below */ }
    this.#open = false;
    this.#markReady(false);
    for (const w of this.#waiters.splice(0)) {
      w.reject(new Error("the tmux control client exited with a command in flight"));
    }
  }

  #dispatch(event: ControlEvent): void {
    if (event.kind === "exit") {
      this.#reason = event.reason ? `tmux: ${event.reason}` : "the tmux session ended";
      this.#open = false;
    }
    if (event.kind !== "answer") {
      this.#onEvent(event);
      return;
    }
    if (!this.#attached) {
      // the first block is the attach itself
      this.#attached = event.ok;
      const why = event.lines.map((l) => DEC.decode(l)).join(" ").trim();
      if (!event.ok && why) this.#refusal = why;
      this.#markReady(event.ok);
      return;
    }
    if (!event.ours) return; // a block this client did not ask for (a user's hook)
    const waiter = this.#waiters[0];
    if (!waiter) return;
    waiter.stdout.push(...event.lines.map((l) => DEC.decode(l)));
    // after a failure tmux runs none of the line's later commands: the answer is complete
    if (event.ok && --waiter.blocks > 0) return;
    this.#waiters.shift();
    const text = event.lines.map((l) => DEC.decode(l)).join("\n");
    const answer = {
      ok: event.ok,
      stdout: waiter.stdout.join("\n"),
      error: event.ok ? "" : text.trim(),
    };
    waiter.onAnswered?.(answer);
    waiter.resolve(answer);
  }
}
