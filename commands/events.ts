/**
 * `the-loop events`: query the event log (filter, last N, follow) or print the catalog of event
 * types (`--types`). Reading streams; see `events/query.ts`.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { isAbsolute, join } from "node:path";
import type { CliContext } from "./_context.ts";
import { formatOption, table, toJson } from "./_output.ts";
import { loadCliConfig } from "./_config.ts";
import { UsageError } from "../errors.ts";
import {
  catalogText,
  EVENT_TYPES,
  type EventFilter,
  type EventRecord,
  followEvents,
  parseLevel,
  parseSince,
  queryEvents,
  TABLE_HEADERS,
  tableRow,
} from "../events/mod.ts";

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
  format: "table" | "text" | "json" | "jsonl";
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
    .option("--work-item <ref>", "only events of this work item (or remote endpoint)")
    .option("--delivery-id <id>", "only events of this webhook delivery")
    .option("--source <source>", "only events from this source (gh-webhook, poll, sessions, …)")
    .option("--level <level>", "only events at least this severe: debug|info|warning|error")
    .option("--since <when>", "only events since a duration ago (30s, 15m, 2h, 1d) or a time")
    .addOption(new Option("--limit <n>", "show the last N matches; 0 shows all").default("50"))
    .option("--follow", "after the matches, print new matching events until interrupted")
    .option("--types", "print the catalog of event types instead");
  formatOption(cmd, ["table", "text", "json", "jsonl"], "table");
  cmd.action((flags: EventsFlags) => (flags.types ? printTypes(ctx, flags) : query(ctx, flags)));
}

function printTypes(ctx: CliContext, flags: EventsFlags): void {
  if (flags.format === "jsonl") throw new UsageError("--types: use --format text or json");
  ctx.write(flags.format === "json" ? toJson(EVENT_TYPES) : catalogText());
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
    return isAbsolute(flags.file) ? flags.file : join(ctx.cwd, flags.file);
  }
  return (await loadCliConfig(ctx)).config.eventLog.path;
}

function line(record: EventRecord, format: EventsFlags["format"]): string {
  return format === "jsonl" ? JSON.stringify(record) + "\n" : tableRow(record).join("  ") + "\n";
}

async function query(ctx: CliContext, flags: EventsFlags): Promise<void> {
  const filter = parseFilter(flags);
  const limit = parseLimit(flags.limit);
  if (flags.follow && flags.format === "json") {
    throw new UsageError("--follow prints one event per line: use --format table or jsonl");
  }
  const path = await logPath(ctx, flags);
  let buffered = ""; // streamed output is written in blocks, not a syscall per line
  const stream = limit === 0 && flags.format === "jsonl";
  const result = await queryEvents({
    path,
    filter,
    limit,
    onRecord: stream
      ? (r) => {
        buffered += line(r, "jsonl");
        if (buffered.length < 65536) return;
        ctx.write(buffered);
        buffered = "";
      }
      : undefined,
  });
  if (buffered) ctx.write(buffered);
  if (!result.exists) {
    ctx.warn(
      `the-loop: the event log ${path} does not exist yet` +
        (flags.follow ? "; waiting for it\n" : "\n"),
    );
  }
  const records = result.records;
  if (flags.format === "json") ctx.write(toJson(records));
  else if (flags.format === "jsonl") { for (const r of records) ctx.write(line(r, "jsonl")); }
  else if (records.length > 0) ctx.write(table(TABLE_HEADERS, records.map(tableRow)));
  let skipped = result.skipped;
  if (flags.follow) {
    await followEvents({
      path,
      start: result.end,
      filter,
      stop: ctx.interrupted(),
      onRecord: (r) => ctx.write(line(r, flags.format)),
      onSkip: () => skipped++,
      onNotice: (m) => ctx.warn(`the-loop: ${m}\n`),
    });
  }
  if (skipped > 0) ctx.warn(`the-loop: skipped ${skipped} malformed line(s) in ${path}\n`);
}
