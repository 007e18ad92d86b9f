/**
 * Text for a person's terminal. Hook answers, hook errors, GitHub text and event-log records
 * can hold control characters: an OSC 52 sequence writes the operator's clipboard, a clear-screen
 * hides what came before, a carriage return paints a fake "passed" over a failure. Everything
 * the-loop prints for a person passes through {@linkcode visible}; JSON output keeps the exact
 * text (JSON escapes it).
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
