/**
 * `the-loop events`: query the event log (filter, last N, follow) or print the catalog of event
 * types (`--types`). Reading streams (see `events/query.ts`) and so does printing: `--limit 0`
 * hands each match to the printer as it is found, in every format, so memory stays constant
 * however large the log. A line over the line cap is skipped unparsed, with a note on stderr
 * (stdout stays valid JSON/JSONL).
 *
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { isAbsolute, join } from "node:path";
import type { CliContext } from "./context.ts";
import { formatOption } from "./_output.ts";
import { printEnvelope } from "./_envelope.ts";
import { loadCliConfig } from "./_config.ts";
import { UsageError } from "../errors.ts";
import {
  catalogText,
  EVENT_TYPES,
  type EventFilter,
  type EventRecord,
  followEvents,
  MAX_LINE_BYTES,
  type OversizedLine,
  parseLevel,
  parseSince,
  queryEvents,
  tableRow,
  TableStream,
} from "../events/mod.ts";

/** With `--limit 0`, the table's columns are sized from its first this-many rows. */
const TABLE_SIZE_ROWS = 200;

interface EventsFlags {
  file?: string;
  type: string[];
  workItem?: string;
  deliveryId?: string;
  source?: string;
  level?: string;
  since?: string;
  limit: string;
  follow?: boolean;
  types?: boolean;
  format: "table" | "json" | "jsonl";
}

/** Adds `events` to the program. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command("events")
    .description("query the event log (filter, last N, follow) or list the event types")
    .option("--file <path>", "the event log to read (default: the config's eventLog.path)")
    .option(
      "--type <pattern>",
      "event type, an fnmatch pattern such as 'hooks.*' (repeatable)",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option(
      "--work-item <ref>",
      "only events of this work item or endpoint, e.g. github:acme/app#12 (or acme/app#12)",
    )
    .option("--delivery-id <id>", "only events of this webhook delivery")
    .option("--source <source>", "only events from this source (gh-webhook, poll, sessions, …)")
    .option("--level <level>", "only events at least this severe: debug|info|warning|error")
    .option("--since <when>", "only events since a duration ago (30s, 15m, 2h, 1d) or a time")
    .addOption(new Option("--limit <n>", "show the last N matches; 0 shows all").default("50"))
    .option("--follow", "after the matches, print new matching events until interrupted")
    .option("--types", "print the catalog of event types instead");
  // no `text`: it was the table again; each format offered is a different one
  formatOption(cmd, ["table", "json", "jsonl"], "table");
  const format = cmd.options.find((o) => o.long === "--format")!;
  const parseChoice = format.parseArg!;
  format.argParser((value: string, previous: unknown) => {
    if (value === "text") {
      throw new InvalidArgumentError("events prints a table for people: use --format table");
    }
    return parseChoice(value, previous);
  });
  cmd.action((flags: EventsFlags) => {
    if (!flags.types) return query(ctx, flags);
    refuseQueryFlags(cmd);
    printTypes(ctx, flags);
  });
}

/** `--types` prints the catalog: a query flag with it would be silently ignored, so refuse it. */
function refuseQueryFlags(cmd: Command): void {
  const given = cmd.options
    .filter((o) => o.long && !["--types", "--format"].includes(o.long))
    .filter((o) => cmd.getOptionValueSource(o.attributeName()) === "cli")
    .map((o) => o.long);
  if (given.length > 0) {
    throw new UsageError(
      `--types prints the catalog and takes no query flags (got ${given.join(", ")}); ` +
        "drop --types to query the log",
    );
  }
}

/** The catalog; as JSON, in the envelope (`schema/cli/events-types.json`) under `types`. */
function printTypes(ctx: CliContext, flags: EventsFlags): void {
  if (flags.format === "jsonl") throw new UsageError("--types: use --format table or json");
  if (flags.format !== "json") return ctx.write(catalogText());
  printEnvelope(ctx, "events --types", { ok: true, config: null }, { types: EVENT_TYPES });
}

function parseFilter(flags: EventsFlags): EventFilter {
  return {
    types: flags.type.length ? flags.type : undefined,
    workItem: flags.workItem,
    deliveryId: flags.deliveryId,
    source: flags.source,
    level: flags.level === undefined ? undefined : parseLevel(flags.level),
    since: flags.since === undefined ? undefined : parseSince(flags.since),
  };
}

function parseLimit(text: string): number {
  if (!/^\d+$/.test(text.trim())) {
    throw new UsageError(`--limit: must be a whole number ≥ 0, 0 meaning all (got '${text}')`);
  }
  return Number(text);
}

async function logPath(ctx: CliContext, flags: EventsFlags): Promise<string> {
  if (flags.file !== undefined) {
    // "" stays empty (queryEvents says so) rather than turning into the working directory
    return flags.file === "" || isAbsolute(flags.file) ? flags.file : join(ctx.cwd, flags.file);
  }
  return (await loadCliConfig(ctx)).config.eventLog.path;
}

/** Over-long lines met: how many, and the first few (for the note). */
class Oversized {
  count = 0;
  shown: OversizedLine[] = [];
  add(line: OversizedLine): void {
    this.count++;
    if (this.shown.length < 3) this.shown.push(line);
  }
  /** The note for stderr. */
  note(path: string): string {
    const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
    const where = [...this.shown].sort((a, b) => a.offset - b.offset)
      .map((l) => `${mib(l.bytes)} at byte ${l.offset}`).join(", ");
    return `the-loop: skipped ${this.count} line(s) over the ${MAX_LINE_BYTES / 1048576} MiB ` +
      `line cap in ${path}, unread: ${where}${this.count > this.shown.length ? ", …" : ""}\n`;
  }
}

/** Collects output and writes it in blocks of about 64 KiB, not a system call per line. */
class BlockWriter {
  #text = "";
  constructor(private ctx: CliContext) {}
  write(text: string): void {
    this.#text += text;
    if (this.#text.length >= 65536) this.flush();
  }
  flush(): void {
    if (this.#text) this.ctx.write(this.#text);
    this.#text = "";
  }
}

/** Prints records one at a time in `format`; `end()` closes what needs closing. */
interface Printer {
  record(r: EventRecord): void;
  /** After the query: closes a JSON array; makes a table print later rows as they come. */
  end(): void;
}

/**
 * The printer for `format`. Nothing is kept but a table's first `sizeRows` rows, so `--limit 0`
 * prints any number of records in constant memory. JSON comes out exactly as `toJson` would
 * print the whole array.
 */
function printerFor(format: EventsFlags["format"], out: BlockWriter, sizeRows: number): Printer {
  if (format === "jsonl") return { record: (r) => out.write(JSON.stringify(r) + "\n"), end() {} };
  if (format === "json") {
    let first = true;
    return {
      record(r) {
        out.write(
          (first ? "[\n  " : ",\n  ") + JSON.stringify(r, null, 2).replaceAll("\n", "\n  "),
        );
        first = false;
      },
      end: () => out.write(first ? "[]\n" : "\n]\n"),
    };
  }
  const t = new TableStream({ write: (s) => out.write(s), sizeRows });
  return { record: (r) => t.row(tableRow(r)), end: () => t.flush() };
}

async function query(ctx: CliContext, flags: EventsFlags): Promise<void> {
  const filter = parseFilter(flags);
  const limit = parseLimit(flags.limit);
  if (flags.follow && flags.format === "json") {
    throw new UsageError("--follow prints one event per line: use --format table or jsonl");
  }
  const path = await logPath(ctx, flags);
  const out = new BlockWriter(ctx);
  // --limit N holds N records anyway, so its table is sized from all of them
  const print = printerFor(flags.format, out, limit === 0 ? TABLE_SIZE_ROWS : limit);
  const oversized = new Oversized();
  const result = await queryEvents({
    path,
    filter,
    limit,
    onRecord: limit === 0 ? print.record : undefined,
    onOversized: (line) => oversized.add(line),
  });
  for (const r of result.records) print.record(r);
  print.end();
  out.flush();
  if (!result.exists) {
    ctx.warn(
      `the-loop: the event log ${path} does not exist yet` +
        (flags.follow ? "; waiting for it\n" : "\n"),
    );
  }
  if (oversized.count > 0) ctx.warn(oversized.note(path));
  let skipped = result.skipped;
  if (flags.follow) {
    await followEvents({
      path,
      start: result.end,
      filter,
      stop: ctx.interrupted(),
      onRecord: (r) => {
        print.record(r);
        out.flush();
      },
      onSkip: () => skipped++,
      onOversized: (line) => {
        const one = new Oversized();
        one.add(line);
        ctx.warn(one.note(path));
      },
      onNotice: (m) => ctx.warn(`the-loop: ${m}\n`),
    });
  }
  if (skipped > 0) ctx.warn(`the-loop: skipped ${skipped} malformed line(s) in ${path}\n`);
}
