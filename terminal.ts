/**
 * Text for a person's terminal. Hook answers, hook errors, GitHub text and event-log records
 * can hold control characters: an OSC 52 sequence writes the operator's clipboard, a clear-screen
 * hides what came before, a carriage return paints a fake "passed" over a failure. Everything
 * the-loop prints for a person passes through {@linkcode visible}; JSON output keeps the exact
 * text (JSON escapes it).
 *
 * Text for an agent's terminal. A prompt is pasted into a harness's TUI (tmux) or handed to it as
 * an argument (headless): a comment carrying `ESC[201~` would end the paste early and type the
 * rest as keys, `\x03` would kill the harness, NUL would cut the paste (and fail a spawn), a
 * carriage return would submit half a prompt. Every prompt passes through {@linkcode promptSafe}.
 *
 * @module
 */

// C0 controls (but tab and newline), DEL, C1 controls, and the bidirectional overrides and
// isolates that reorder what a terminal shows ("Trojan Source").
// deno-lint-ignore no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// deno-lint-ignore no-control-regex
const UNSAFE_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function show(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code === 0x0a) return "\\n";
  if (code === 0x09) return "\\t";
  if (code === 0x0d) return "\\r";
  if (code === 0x1b) return "\\e";
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

/** Options for {@linkcode visible}. */
export interface VisibleOptions {
  /** Keep newlines and tabs as they are (multi-line messages); default true. */
  multiline?: boolean;
}

/**
 * `text` with every control character a terminal would act on made visible as an escape
 * (`\e`, `\x07`, `\r`, `\u{202e}`), so it prints as inert text. With `multiline: false` a
 * newline and a tab are shown as `\n` and `\t` too (one table cell, one line).
 */
export function visible(text: string, opts: VisibleOptions = {}): string {
  const re = opts.multiline === false ? UNSAFE_ONE_LINE : UNSAFE;
  return text.replace(re, show);
}

// What a prompt may not hold: C0 controls (but tab and newline), DEL, C1 controls, and lone
// surrogates (which would encode as invalid UTF-8). CR is handled first: CRLF and a lone CR
// become LF.
const PROMPT_UNSAFE = new RegExp(
  [
    "[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]",
    "[\\ud800-\\udbff](?![\\udc00-\\udfff])",
    "(?<![\\ud800-\\udbff])[\\udc00-\\udfff]",
  ].join("|"),
  "g",
);

function standIn(ch: string): string {
  const code = ch.charCodeAt(0);
  // C0 and DEL: their Unicode Control Pictures (␀ … ␛ … ␟, ␡), one printable character each
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  // C1 has no pictures: its code as inert ASCII text (`\x9b`)
  if (code <= 0x9f) return `\\x${code.toString(16)}`;
  return "\ufffd"; // a lone surrogate
}

/**
 * `text` made safe to become (part of) a prompt a harness reads from its terminal: ESC, every
 * C0 control but tab and newline, DEL and the C1 controls (U+0080–U+009F) are replaced by a
 * visible, printable stand-in — a C0 control or DEL by its Unicode Control Picture (ESC → `␛`,
 * NUL → `␀`, `\x03` → `␃`, DEL → `␡`), a C1 control by its code as text (`\x9b`); CRLF and a
 * lone CR become LF; invalid UTF-8 (bytes) and lone surrogates (a string) become U+FFFD. After
 * it, no bracketed-paste marker, key sequence or control byte is left: a paste of it is one
 * paste, its newlines are text inside it. Idempotent; printable text (any script, emoji, the
 * bidirectional marks) is kept as it is.
 *
 * ```ts
 * promptSafe("ok\x1b[201~\r!touch pwned\r"); // "ok␛[201~\n!touch pwned\n"
 * ```
 */
export function promptSafe(text: string | Uint8Array): string {
  const s = typeof text === "string" ? text : new TextDecoder().decode(text);
  return s.replace(/\r\n?/g, "\n").replace(PROMPT_UNSAFE, standIn);
}

/** Renders rows as an aligned plain-text table with a header line. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => i === cells.length - 1 ? c : c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)].join("\n") + "\n";
}

/** ANSI colours for a person's terminal; each is the identity when colour is off. */
export interface Colour {
  /** Whether these functions add colour at all. */
  readonly enabled: boolean;
  /** Errors. */
  red(text: string): string;
  /** Success: ok, ✓. */
  green(text: string): string;
  /** Warnings. */
  yellow(text: string): string;
  /** Notes and other asides. */
  dim(text: string): string;
  bold(text: string): string;
}

function sgr(on: number, off: number): (text: string) => string {
  return (text) => `\x1b[${on}m${text}\x1b[${off}m`;
}

/** The colours, or (`enabled` false) functions that return their text as it is. */
export function colour(enabled: boolean): Colour {
  if (!enabled) {
    const same = (text: string) => text;
    return { enabled, red: same, green: same, yellow: same, dim: same, bold: same };
  }
  return {
    enabled,
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    dim: sgr(2, 22),
    bold: sgr(1, 22),
  };
}

/** What decides whether a stream gets colour. */
export interface ColourWanted {
  /** Is the stream a terminal? Never colour a pipe or a file. */
  isTerminal: boolean;
  /** `$NO_COLOR`: any non-empty value turns colour off (https://no-color.org). */
  noColorEnv?: string;
  /** `--no-color` was given. */
  noColorFlag?: boolean;
}

/** Colour only on a terminal, and never with `NO_COLOR` set or `--no-color` given. */
export function colourWanted(w: ColourWanted): boolean {
  return w.isTerminal && !w.noColorEnv && !w.noColorFlag;
}
