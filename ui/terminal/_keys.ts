/**
 * What a person types into the web terminal, as tmux commands that can only type: the page's
 * xterm.js sends what a terminal would send (text, `\r` for Enter, `ESC [ A` for Up, a paste
 * between `ESC [200~` and `ESC [201~`), and {@linkcode inputActions} reads it against a
 * whitelist — printable text, the key sequences of {@linkcode KEYS}, Ctrl+letter, Alt+letter,
 * pastes — dropping anything else (an unknown escape sequence, a stray control byte). Text and
 * pastes pass through `promptSafe` (the prompts' own sanitiser: no ESC, no control byte, no paste
 * marker survives it), then {@linkcode inputCommands} turns each action into words of
 * `send-keys -l` (text), `send-keys <key name>` (a whitelisted key) or a buffer pasted through the
 * prompts' guarded paste: no tmux command is ever built from the page's text, which only ever is
 * one quoted word (see `dispatch/runners/tmux_words.ts`). Pure: nothing here talks to tmux.
 *
 * @module
 */
import { promptSafe } from "../../terminal.ts";
import { TMUX_GUARDED_PASTE_ANSWERS, tmuxGuardedPaste, tmuxPaneOf } from "../../dispatch/mod.ts";

/** One thing typed: text, a key tmux names, or a paste. */
export type InputAction =
  | { kind: "text"; text: string }
  | { kind: "key"; key: string }
  | { kind: "paste"; text: string };

/**
 * The key sequences a terminal sends, by the tmux key name `send-keys` presses for it. Both
 * cursor-key modes (`ESC [ A` and `ESC O A`) name the same key: tmux sends the pane whichever its
 * program asked for.
 */
export const KEYS: Readonly<Record<string, string>> = {
  "\r": "Enter",
  "\n": "C-j",
  "\t": "Tab",
  "\x7f": "BSpace",
  "\x08": "C-h",
  "\x00": "C-Space",
  "\x1b": "Escape",
  "\x1b[Z": "BTab",
  "\x1b[A": "Up",
  "\x1b[B": "Down",
  "\x1b[C": "Right",
  "\x1b[D": "Left",
  "\x1bOA": "Up",
  "\x1bOB": "Down",
  "\x1bOC": "Right",
  "\x1bOD": "Left",
  "\x1b[H": "Home",
  "\x1b[F": "End",
  "\x1bOH": "Home",
  "\x1bOF": "End",
  "\x1b[1~": "Home",
  "\x1b[4~": "End",
  "\x1b[2~": "IC",
  "\x1b[3~": "DC",
  "\x1b[5~": "PPage",
  "\x1b[6~": "NPage",
  "\x1bOP": "F1",
  "\x1bOQ": "F2",
  "\x1bOR": "F3",
  "\x1bOS": "F4",
  "\x1b[15~": "F5",
  "\x1b[17~": "F6",
  "\x1b[18~": "F7",
  "\x1b[19~": "F8",
  "\x1b[20~": "F9",
  "\x1b[21~": "F10",
  "\x1b[23~": "F11",
  "\x1b[24~": "F12",
  ...modifiedArrows(),
};

/** `ESC [ 1 ; <m> A` …: Shift, Alt and Ctrl with an arrow, Home or End. */
function modifiedArrows(): Record<string, string> {
  const mods: Record<string, string> = { "2": "S-", "3": "M-", "5": "C-" };
  const keys: Record<string, string> = {
    A: "Up",
    B: "Down",
    C: "Right",
    D: "Left",
    H: "Home",
    F: "End",
  };
  const out: Record<string, string> = {};
  for (const [m, prefix] of Object.entries(mods)) {
    for (const [final, key] of Object.entries(keys)) out[`\x1b[1;${m}${final}`] = `${prefix}${key}`;
  }
  return out;
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** A CSI sequence: `ESC [`, parameter bytes, intermediate bytes, one final byte. */
// deno-lint-ignore no-control-regex -- ESC is what it looks for
const CSI = /^\x1b\[[0-?]*[ -/]*[@-~]/;
/** Printable text: anything but C0, DEL and C1. */
// deno-lint-ignore no-control-regex -- control characters are what it stops at
const TEXT = /^[^\x00-\x1f\x7f-\x9f]+/;

/** The whitelisted actions of what the page sent; whatever is not on the list is dropped. */
export function inputActions(data: string): InputAction[] {
  const out: InputAction[] = [];
  const text = (t: string) => {
    const safe = promptSafe(t);
    const last = out.at(-1);
    if (last?.kind === "text") last.text += safe;
    else if (safe) out.push({ kind: "text", text: safe });
  };
  let i = 0;
  while (i < data.length) {
    const rest = data.slice(i);
    if (rest.startsWith(PASTE_START)) {
      const end = rest.indexOf(PASTE_END, PASTE_START.length);
      const body = rest.slice(PASTE_START.length, end < 0 ? undefined : end);
      const safe = promptSafe(body);
      if (safe) out.push({ kind: "paste", text: safe });
      i += end < 0 ? rest.length : end + PASTE_END.length;
      continue;
    }
    const printable = TEXT.exec(rest);
    if (printable) {
      text(printable[0]);
      i += printable[0].length;
      continue;
    }
    const [seq, key] = keyAt(rest);
    if (key) out.push({ kind: "key", key });
    i += seq;
  }
  return out;
}

/** The key at the start of `rest` and how many characters it takes (no key: dropped). */
function keyAt(rest: string): [number, string | undefined] {
  const ch = rest[0];
  const code = ch.charCodeAt(0);
  if (ch !== "\x1b") {
    if (KEYS[ch]) return [1, KEYS[ch]];
    // Ctrl+letter: \x01 … \x1a
    if (code >= 1 && code <= 26) return [1, `C-${String.fromCharCode(0x60 + code)}`];
    return [1, undefined];
  }
  const csi = CSI.exec(rest);
  if (csi) return [csi[0].length, KEYS[csi[0]]];
  const ss3 = rest.slice(0, 3);
  if (rest[1] === "O" && KEYS[ss3]) return [3, KEYS[ss3]];
  // Alt+letter or digit: ESC then the character
  if (rest.length > 1 && /[A-Za-z0-9]/.test(rest[1])) return [2, `M-${rest[1]}`];
  return [1, "Escape"];
}

/** The tmux commands of {@linkcode inputCommands} and the blocks a control client answers them with. */
export interface InputCommands {
  commands: string[][];
  answers: number;
}

/**
 * The commands that type `actions` into session `name`'s pane: `send-keys -l -- <text>`,
 * `send-keys <key>`, and for a paste a buffer of its own (`buffer()` names it) pasted by the
 * prompts' guarded paste, bracketed, without Enter.
 */
export function inputCommands(
  name: string,
  actions: InputAction[],
  buffer: () => string,
): InputCommands {
  const pane = tmuxPaneOf(name);
  const commands: string[][] = [];
  let answers = 0;
  for (const a of actions) {
    switch (a.kind) {
      case "text":
        commands.push(["send-keys", "-l", "-t", pane, "--", a.text]);
        answers += 1;
        break;
      case "key":
        commands.push(["send-keys", "-t", pane, a.key]);
        answers += 1;
        break;
      case "paste": {
        const b = buffer();
        commands.push(["set-buffer", "-b", b, "--", a.text]);
        commands.push(tmuxGuardedPaste(name, b, { enter: false }));
        answers += 1 + TMUX_GUARDED_PASTE_ANSWERS;
        break;
      }
    }
  }
  return { commands, answers };
}
