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
