/**
 * How `the-loop events` shows records and the catalog to people: table rows with a short
 * summary of the type-specific fields, and the catalog as text or as the Markdown table that
 * `docs/events.md` holds. A record's text is anyone's (a hook's refusal reason, a command's
 * output): every cell made from it passes through {@linkcode visible}, so a control character
 * (an OSC 52 clipboard write, a clear-screen, a carriage return, a bidi override) prints as a
 * visible escape instead of acting on the operator's terminal.
 *
 * @module
 */
import { COMMON_FIELDS, EVENT_TYPES } from "./catalog.ts";
import type { EventRecord } from "./record.ts";
import { visible } from "../terminal.ts";

/** The table's columns. */
export const TABLE_HEADERS = ["ts", "level", "source", "event", "work_item", "summary"];

const SHOWN = new Set(["ts", "level", "source", "event", "pid", "work_item"]);
const VALUE_MAX = 40;
const SUMMARY_MAX = 120;

/** Record-originated text as one inert line of a table cell. */
function cellText(text: string): string {
  return visible(text, { multiline: false });
}

function short(value: unknown): string {
  let text = typeof value === "string"
    ? (/^[^\s"=]+$/.test(value) ? value : JSON.stringify(value))
    : JSON.stringify(value) ?? String(value);
  text = cellText(text.replace(/\s+/g, " ")); // before the cap, so the cap is what shows
  return text.length > VALUE_MAX ? text.slice(0, VALUE_MAX - 1) + "…" : text;
}

/**
 * `key=value` pairs of the fields the table has no column for, capped in length, control
 * characters in keys and values shown as escapes.
 */
export function summarize(record: EventRecord): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(record)) {
    if (!SHOWN.has(k) && v !== undefined) parts.push(`${cellText(k)}=${short(v)}`);
  }
  const text = parts.join(" ");
  return text.length > SUMMARY_MAX ? text.slice(0, SUMMARY_MAX - 1) + "…" : text;
}

/** The work item column: a ref string, an object's `ref`, or `-`. */
export function workItemOf(record: EventRecord): string {
  const w = record.work_item;
  if (typeof w === "string") return w;
  if (w && typeof w === "object" && typeof (w as { ref?: unknown }).ref === "string") {
    return (w as { ref: string }).ref;
  }
  return "-";
}

/**
 * One table row per record: the one place the table and text formats render a record, so every
 * cell is made inert here (`multiline: false`: a newline in a cell is shown as `\n`).
 */
export function tableRow(record: EventRecord): string[] {
  const cell = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "-" : String(v));
  return [
    cell(record.ts),
    cell(record.level),
    cell(record.source),
    cell(record.event),
    workItemOf(record),
    summarize(record), // already inert, and capped as shown; cellText leaves it as it is
  ].map(cellText);
}

/** The catalog for a terminal: each type, its level and description, then its fields. */
export function catalogText(): string {
  const lines: string[] = [];
  for (const [name, t] of Object.entries(EVENT_TYPES)) {
    lines.push(`${name}  [${t.level}]  ${t.description}`);
    const width = Math.max(...Object.keys(t.fields).map((k) => k.length));
    for (const [field, doc] of Object.entries(t.fields)) {
      lines.push(`    ${field.padEnd(width)}  ${doc}`);
    }
    lines.push("");
  }
  lines.push(
    "Every record also has: " + Object.keys(COMMON_FIELDS).join(", ") +
      " (see docs/events.md).",
  );
  return lines.join("\n") + "\n";
}

function md(text: string): string {
  return text.replace(/\|/g, "\\|");
}

/** The catalog as the Markdown `docs/events.md` embeds (a test keeps the two equal). */
export function catalogMarkdown(): string {
  const out: string[] = [
    "Every record has these fields, then those of its type:",
    "",
    "| field | type — meaning |",
    "|---|---|",
    ...Object.entries(COMMON_FIELDS).map(([f, d]) => `| \`${f}\` | ${md(d)} |`),
    "",
  ];
  for (const [name, t] of Object.entries(EVENT_TYPES)) {
    out.push(`### \`${name}\``, "", `${t.description} Default level: \`${t.level}\`.`, "");
    out.push("| field | type — meaning |", "|---|---|");
    for (const [f, d] of Object.entries(t.fields)) out.push(`| \`${f}\` | ${md(d)} |`);
    out.push("");
  }
  return out.join("\n");
}

/** Options for {@linkcode TableStream}. */
export interface TableStreamOptions {
  /** Where the text goes. */
  write(text: string): void;
  /** The header cells; default {@linkcode TABLE_HEADERS}. */
  headers?: string[];
  /** Rows held back to size the columns before anything is printed; default 100. */
  sizeRows?: number;
}

/**
 * A table printed as its rows arrive, in bounded memory. The first `sizeRows` rows are held
 * back to size the columns, so a table of at most that many rows looks exactly like one laid
 * out from all its rows; then the header and those rows are printed and every later row is
 * padded to the same widths (a longer cell pushes the rest of its own row right). Columns are
 * two spaces apart, lines carry no trailing spaces, and no rows print nothing, not even a header.
 */
export class TableStream {
  #write: (text: string) => void;
  #headers: string[];
  #size: number;
  #held: string[][] | undefined = [];
  #widths: number[] = [];

  constructor(opts: TableStreamOptions) {
    this.#write = opts.write;
    this.#headers = opts.headers ?? TABLE_HEADERS;
    this.#size = Math.max(1, opts.sizeRows ?? 100);
  }

  /** Adds a row: held while the columns are being sized, printed at once after that. */
  row(cells: string[]): void {
    if (this.#held) {
      this.#held.push(cells);
      if (this.#held.length >= this.#size) this.flush();
    } else this.#write(this.#line(cells));
  }

  /**
   * Prints what is held and stops holding: later rows print as they come (a live `--follow`).
   * With nothing held yet, the next row sizes the columns on its own.
   */
  flush(): void {
    const held = this.#held;
    if (!held) return;
    if (held.length === 0) {
      this.#size = 1;
      return;
    }
    this.#held = undefined;
    this.#widths = this.#headers.map((h, i) =>
      Math.max(h.length, ...held.map((r) => (r[i] ?? "").length))
    );
    this.#write([this.#headers, ...held].map((r) => this.#line(r)).join(""));
  }

  #line(cells: string[]): string {
    const last = cells.length - 1;
    return cells.map((c, i) => (i === last ? c : c.padEnd(this.#widths[i] ?? 0))).join("  ")
      .trimEnd() + "\n";
  }
}
