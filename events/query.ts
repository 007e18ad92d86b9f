/**
 * Queries the event log without reading it into memory. `limit` without filters reads blocks
 * backwards from the end until it has that many records; with filters the file is streamed
 * forward through a ring buffer of the last `limit` matches. Either way the cost is linear in the
 * bytes read, and a line longer than `MAX_LINE_BYTES` (`lines.ts`) is skipped unparsed (reported
 * through `onOversized`).
 *
 * @module
 */
import type { EventRecord } from "./record.ts";
import { compileFilter, compileLineCheck, type EventFilter, isEmptyFilter } from "./filter.ts";
import { linesBackward, linesForward, type OversizedLine, type RandomReader } from "./lines.ts";
import { assertLogPath, checkedReader, checkedStat, logReadError } from "./_read_error.ts";

/** Options for {@linkcode queryEvents}. */
export interface QueryOptions {
  /** The JSONL log. */
  path: string;
  filter?: EventFilter;
  /** Keep the last `limit` matches; 0 keeps them all. */
  limit: number;
  /**
   * With `limit: 0`, hand each match here as it is found instead of keeping it (constant
   * memory: what `the-loop events --limit 0` does for every format).
   */
  onRecord?: (record: EventRecord) => void;
  /** Called for each line skipped, unparsed, for being longer than `MAX_LINE_BYTES` (`lines.ts`). */
  onOversized?: (line: OversizedLine) => void;
}

/** What a query found. */
export interface QueryResult {
  /** False when the file does not exist (then everything else is empty). */
  exists: boolean;
  /** The matches, oldest first (empty when they went to `onRecord`). */
  records: EventRecord[];
  /**
   * Lines that were not JSON event records (among those read and parsed: with a type, source
   * or level filter, lines whose raw text already rules them out are not parsed).
   */
  skipped: number;
  /** The offset a follower should continue from. */
  end: number;
}

/** Parses one line; undefined when it is not a JSON object with a string `event`. */
export function parseLine(line: string): EventRecord | undefined {
  try {
    const v = JSON.parse(line);
    if (v === null || typeof v !== "object" || Array.isArray(v) || typeof v.event !== "string") {
      return undefined;
    }
    return v as EventRecord;
  } catch {
    return undefined;
  }
}

/** Options for {@linkcode tailRecords}. */
export interface TailOptions {
  /** Called for each line skipped for its length (see {@linkcode linesBackward}). */
  onOversized?: (line: OversizedLine) => void;
  /** Lines longer than this are skipped; default `MAX_LINE_BYTES` (`lines.ts`). */
  maxLineBytes?: number;
}

/**
 * The last `n` records of bytes `[0, end)`, reading backwards; `skipped` counts bad lines met
 * (over-long ones go to `opts.onOversized` instead).
 */
export async function tailRecords(
  reader: RandomReader,
  end: number,
  n: number,
  opts: TailOptions = {},
): Promise<{ records: EventRecord[]; skipped: number }> {
  const records: EventRecord[] = [];
  let skipped = 0;
  if (n <= 0) return { records, skipped };
  for await (const line of linesBackward(reader, end, opts)) {
    const r = parseLine(line);
    if (!r) skipped++;
    else if (records.push(r) >= n) break;
  }
  return { records: records.reverse(), skipped };
}

/** Keeps the last `size` items pushed. */
class Ring<T> {
  #items: T[] = [];
  #next = 0;
  constructor(readonly size: number) {}
  push(item: T): void {
    if (this.#items.length < this.size) this.#items.push(item);
    else this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.size;
  }
  toArray(): T[] {
    return this.#items.length < this.size
      ? this.#items
      : [...this.#items.slice(this.#next), ...this.#items.slice(0, this.#next)];
  }
}

/**
 * Runs a query over the log at `opts.path`. A missing file is not an error (`exists: false`);
 * one that cannot be opened or read (a directory, no permission, an empty path) throws an error
 * naming the log and where its path comes from.
 */
export async function queryEvents(opts: QueryOptions): Promise<QueryResult> {
  assertLogPath(opts.path);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(opts.path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { exists: false, records: [], skipped: 0, end: 0 };
    }
    throw logReadError(opts.path, error);
  }
  try {
    return await scan(file, opts);
  } finally {
    file.close();
  }
}

async function scan(file: Deno.FsFile, opts: QueryOptions): Promise<QueryResult> {
  const size = (await checkedStat(file, opts.path)).size;
  const reader = checkedReader(file, opts.path);
  const filter = opts.filter ?? {};
  if (opts.limit > 0 && isEmptyFilter(filter)) {
    const tail = await tailRecords(reader, size, opts.limit, { onOversized: opts.onOversized });
    return { exists: true, ...tail, end: size };
  }
  const keep = compileFilter(filter);
  const maybe = compileLineCheck(filter);
  const ring = opts.limit > 0 ? new Ring<EventRecord>(opts.limit) : undefined;
  const all: EventRecord[] = [];
  let skipped = 0;
  let end = 0;
  for await (const batch of linesForward(reader, { start: 0, final: true })) {
    for (const line of batch.oversized) opts.onOversized?.(line);
    for (const line of batch.lines) {
      if (!maybe(line)) continue;
      const r = parseLine(line);
      if (!r) skipped++;
      else if (!keep(r)) continue;
      else if (ring) ring.push(r);
      else if (opts.onRecord) opts.onRecord(r);
      else all.push(r);
    }
    end = batch.end;
  }
  return { exists: true, records: ring ? ring.toArray() : all, skipped, end };
}
