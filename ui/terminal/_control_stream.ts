/**
 * Reading what a tmux control-mode client prints (`tmux -C`, "Control Mode" in tmux(1)): lines of
 * bytes, each a notification (`%output %3 text`, `%exit`, `%layout-change …`) or, between
 * `%begin <time> <number> <flags>` and the `%end`/`%error` of the same time and number, a line of
 * a command's answer. `%output` escapes every byte below a space, and the backslash, as `\ooo`
 * (three octal digits); every other byte is the pane's own (UTF-8 split anywhere), so lines are
 * split and decoded as bytes, never as text. Pure: no tmux here (`_attach.ts` runs it).
 *
 * @module
 */

/** One thing a control client said. */
export type ControlEvent =
  /** A command's answer (`ok` false: `%error`), its lines as bytes; `ours`: flags say this client sent it. */
  | { kind: "answer"; ok: boolean; ours: boolean; lines: Uint8Array[] }
  /** `%output %<pane> …`: what the pane printed, unescaped. */
  | { kind: "output"; pane: string; data: Uint8Array }
  /** `%exit [reason]`: the client is leaving (the session ended, it was detached). */
  | { kind: "exit"; reason: string }
  /** Any other notification (`%session-changed $1 name`, `%layout-change …`), as text. */
  | { kind: "notice"; name: string; args: string[] };

const NL = 0x0a;
const BACKSLASH = 0x5c;
const DEC = new TextDecoder();
const OUTPUT = new TextEncoder().encode("%output ");

/** `%output`'s text with every `\ooo` turned back into its byte. */
export function unescapeOutput(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === BACKSLASH && isOctal(bytes, i + 1)) {
      out[n++] = ((bytes[i + 1] - 48) << 6) | ((bytes[i + 2] - 48) << 3) | (bytes[i + 3] - 48);
      i += 3;
    } else out[n++] = b;
  }
  return out.slice(0, n);
}

function isOctal(bytes: Uint8Array, at: number): boolean {
  if (at + 2 >= bytes.length) return false;
  for (let k = 0; k < 3; k++) {
    const d = bytes[at + k];
    if (d < 48 || d > 55) return false;
  }
  return true;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/**
 * Turns a control client's stdout, chunk by chunk, into {@linkcode ControlEvent}s. A block ends
 * only at an `%end`/`%error` with its `%begin`'s time and number, so an answer's line that
 * happens to read `%end` (a pane's captured text) does not end it.
 */
export class ControlReader {
  #rest: Uint8Array = new Uint8Array(0);
  /** The open block: its `time number` and lines so far. */
  #block?: { id: string; ours: boolean; lines: Uint8Array[] };

  /** The events of `chunk` (with whatever earlier chunks left of an unfinished line). */
  push(chunk: Uint8Array): ControlEvent[] {
    const buf = new Uint8Array(this.#rest.length + chunk.length);
    buf.set(this.#rest);
    buf.set(chunk, this.#rest.length);
    const events: ControlEvent[] = [];
    let start = 0;
    for (let nl = buf.indexOf(NL); nl >= 0; nl = buf.indexOf(NL, start)) {
      // a line ends in LF (tmux writes no CR in control mode, but a stray one is not text)
      const end = nl > start && buf[nl - 1] === 0x0d ? nl - 1 : nl;
      const event = this.#line(buf.subarray(start, end));
      if (event) events.push(event);
      start = nl + 1;
    }
    this.#rest = buf.slice(start);
    return events;
  }

  #line(line: Uint8Array): ControlEvent | undefined {
    const block = this.#block;
    if (block) {
      const words = line[0] === 0x25 ? DEC.decode(line.subarray(0, 80)).split(" ") : [];
      if (
        (words[0] === "%end" || words[0] === "%error") && `${words[1]} ${words[2]}` === block.id
      ) {
        this.#block = undefined;
        return { kind: "answer", ok: words[0] === "%end", ours: block.ours, lines: block.lines };
      }
      block.lines.push(line.slice());
      return undefined;
    }
    if (startsWith(line, OUTPUT)) {
      const space = line.indexOf(0x20, OUTPUT.length);
      if (space < 0) return undefined;
      const pane = DEC.decode(line.subarray(OUTPUT.length, space));
      return { kind: "output", pane, data: unescapeOutput(line.subarray(space + 1)) };
    }
    const text = DEC.decode(line);
    const [name, ...args] = text.split(" ");
    if (name === "%begin") {
      // `%begin <time> <number> <flags>`: flags 1 = a command this client sent
      this.#block = { id: `${args[0]} ${args[1]}`, ours: args[2] === "1", lines: [] };
      return undefined;
    }
    if (name === "%exit") return { kind: "exit", reason: args.join(" ") };
    if (!name.startsWith("%")) return undefined;
    return { kind: "notice", name, args };
  }
}
