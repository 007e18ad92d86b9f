/**
 * One web terminal on an open WebSocket: attaches a control-mode client to the target's session
 * (`attach -r` in read-only mode), sends the pane's size and current screen (`hello`: what
 * `capture-pane -e` shows, cursor and alternate screen included), then every `%output` of that
 * pane as a binary frame. `%output` read before the screen's capture is answered is dropped (the
 * capture already shows it). In interactive mode the page's input goes through `_keys.ts` (the
 * prompts' terminal-safe path: a whitelist, `promptSafe`, `send-keys -l`, the guarded paste) and
 * its size through `refresh-client -C`; in read-only mode both are dropped here, before tmux.
 * When the socket closes the client detaches; when the session ends (or the client is moved off
 * it) the socket gets an `exit` message and closes.
 *
 * @module
 */
import { tmuxPaneOf, tmuxPasteSaidDead } from "../../dispatch/mod.ts";
import { messageOf } from "../../errors.ts";
import { ControlAttach } from "./_attach.ts";
import type { ControlEvent } from "./_control_stream.ts";
import { inputActions, inputCommands } from "./_keys.ts";
import type { TerminalClientMessage, TerminalServerMessage, TerminalTarget } from "./types.ts";

/** Options of {@linkcode serveTerminal}. */
export interface SessionOptions {
  /** The tmux client's whole environment. */
  env: Record<string, string>;
  /** The longest input message taken (characters); longer ones are dropped with a notice. */
  maxInputChars: number;
  /** Problems that are no one's input (tmux refused a command). */
  warn: (message: string) => void;
}

/** What `display-message` prints of the pane: id, size, cursor, alternate screen, cursor shown. */
const PANE_INFO =
  "#{pane_id} #{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{alternate_on} #{cursor_flag}";
/** The size a page may ask for, per side. */
const MIN_SIDE = 2;
const MAX_SIDE = 1000;
/** Bytes sent but not yet taken by the page past which the terminal ends (a page that stalled). */
const MAX_BUFFERED = 16 * 1024 * 1024;

/** The escape sequences that paint `lines` (capture-pane -e) as the pane shows them. */
export function paintScreen(o: {
  lines: string[];
  cursorX: number;
  cursorY: number;
  alternate: boolean;
  cursorShown: boolean;
}): string {
  // attributes carry over from line to line in a capture: reset only at the end
  return `${o.alternate ? "\x1b[?1049h" : ""}\x1b[H\x1b[2J${o.lines.join("\r\n")}\x1b[0m` +
    `\x1b[${o.cursorY + 1};${o.cursorX + 1}H\x1b[?25${o.cursorShown ? "h" : "l"}`;
}

/** Serves one terminal on `socket` (already upgraded) until either side ends. */
export function serveTerminal(
  socket: WebSocket,
  target: TerminalTarget,
  o: SessionOptions,
): void {
  const interactive = target.mode === "interactive";
  const name = target.session;
  const pane = tmuxPaneOf(name);
  let attach: ControlAttach | undefined;
  let paneId: string | undefined;
  let size = "";
  let streaming = false;
  let ready = false;
  let gone = false;
  const pending: unknown[] = [];

  const send = (m: TerminalServerMessage | Uint8Array) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(m instanceof Uint8Array ? m : JSON.stringify(m));
  };
  const finish = (reason: string) => {
    if (gone) return;
    gone = true;
    send({ type: "exit", reason });
    if (socket.readyState === WebSocket.OPEN) socket.close(1000, "the terminal ended");
  };

  const onEvent = (e: ControlEvent) => {
    if (e.kind === "output") {
      if (!streaming || e.pane !== paneId) return;
      send(e.data);
      if (socket.bufferedAmount > MAX_BUFFERED) {
        finish(
          `the page took too long to read the pane's output (over ${MAX_BUFFERED} bytes waiting)`,
        );
        void attach?.close();
      }
    } else if (e.kind === "notice") {
      if (e.name === "%layout-change") void reportSize();
      // moved to another session (its own ended, `detach-on-destroy off`): this one is over
      if (e.name === "%session-changed" && e.args.slice(1).join(" ") !== name) void attach?.close();
    }
  };

  const reportSize = async () => {
    const out = await attach?.run([["display-message", "-p", "-t", pane, PANE_INFO]])
      .catch(() => undefined);
    const [, cols, rows] = out?.ok ? out.stdout.trim().split(" ") : [];
    if (!cols || `${cols}x${rows}` === size) return;
    size = `${cols}x${rows}`;
    send({ type: "size", cols: Number(cols), rows: Number(rows) });
  };

  const onInput = (data: string) => {
    if (!interactive || !attach) return; // read-only: nothing the page sends reaches tmux
    if (data.length > o.maxInputChars) {
      send({
        type: "notice",
        text: `input of ${data.length} characters dropped (at most ${o.maxInputChars})`,
      });
      return;
    }
    const buffers: string[] = [];
    const buffer = () => {
      const b = `${name}-web-${crypto.randomUUID()}`;
      buffers.push(b);
      return b;
    };
    const { commands, answers } = inputCommands(name, inputActions(data), buffer);
    if (commands.length === 0) return;
    const current = attach;
    current.run(commands, { answers }).then(async (out) => {
      if (out.ok || tmuxPasteSaidDead(out.stdout)) return;
      o.warn(`tmux refused the web terminal's input for ${target.ref}: ${out.error}`);
      // a paste that failed leaves its buffer behind (a pasted one was deleted by `-d`)
      for (const b of buffers) await current.run([["delete-buffer", "-b", b]]).catch(() => {});
    }).catch(() => {/* the client is gone: the socket closes with it */});
  };

  const onMessage = (raw: unknown) => {
    if (typeof raw !== "string") return;
    let m: Partial<TerminalClientMessage>;
    try {
      m = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof m !== "object" || m === null) return;
    if (m.type === "ping") {
      const id = typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined;
      send({ type: "pong", ...(id === undefined ? {} : { id }) });
    } else if (m.type === "input" && typeof m.data === "string") onInput(m.data);
    else if (m.type === "resize" && interactive && attach) {
      const side = (n: unknown) =>
        Number.isInteger(n) && (n as number) >= MIN_SIDE && (n as number) <= MAX_SIDE;
      if (!side(m.cols) || !side(m.rows)) return;
      attach.run([["refresh-client", "-C", `${m.cols}x${m.rows}`]]).catch(() => {});
    }
  };

  socket.onmessage = (e) => ready ? onMessage(e.data) : pending.push(e.data);
  socket.onclose = () => {
    gone = true;
    void attach?.close();
  };

  const start = async () => {
    try {
      attach = await ControlAttach.open({
        tmuxArgs: target.tmuxArgs,
        session: name,
        readOnly: !interactive,
        env: o.env,
        onEvent,
      });
    } catch (err) {
      finish(messageOf(err));
      return;
    }
    void attach.ended.then(finish);
    if (gone) {
      await attach.close();
      return;
    }
    // the hello goes out as the answer is read, before any `%output` read after it
    const out = await attach.run([
      ["display-message", "-p", "-t", pane, PANE_INFO],
      ["capture-pane", "-p", "-e", "-t", pane],
    ], { onAnswered: (a) => a.ok && hello(a.stdout) }).catch((err) => ({
      ok: false,
      stdout: "",
      error: messageOf(err),
    }));
    if (!out.ok) {
      finish(`tmux could not read the pane of ${name}: ${out.error}`);
      await attach.close();
      return;
    }
    ready = true;
    for (const m of pending.splice(0)) onMessage(m);
  };

  const hello = (stdout: string) => {
    const [info, ...lines] = stdout.split("\n");
    const [id, cols, rows, x, y, alternate, cursor] = info.split(" ");
    paneId = id;
    size = `${cols}x${rows}`;
    const screen = paintScreen({
      lines: lines.slice(0, Number(rows)),
      cursorX: Number(x),
      cursorY: Number(y),
      alternate: alternate === "1",
      cursorShown: cursor !== "0",
    });
    send({ type: "hello", mode: target.mode, cols: Number(cols), rows: Number(rows), screen });
    streaming = true;
  };

  if (socket.readyState === WebSocket.OPEN) void start();
  else socket.addEventListener("open", () => void start(), { once: true });
}
