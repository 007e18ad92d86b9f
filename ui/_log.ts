/**
 * The event log as the page reads it, every record with its byte offset (the offset just past
 * its line: what the stream sends as an event's id and takes back as `Last-Event-ID`):
 *
 * - {@linkcode readTail}: the records of the log's last bytes (at most `maxBytes`, from the first
 *   whole line), for the snapshot;
 * - {@linkcode followLines}: the whole lines from an offset on, as they are appended (polled),
 *   for the stream. A log that shrank was truncated: read again from 0. A line longer than
 *   `MAX_LINE_BYTES` is skipped.
 *
 * Both only read.
 *
 * @module
 */
import { delay } from "../async/mod.ts";
import { MAX_LINE_BYTES } from "../events/mod.ts";
import { parseLine } from "../events/query.ts";
import type { TailRecord } from "./snapshot.ts";

const NL = 0x0a;
const decoder = new TextDecoder();

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

async function readRange(path: string, start: number, end: number): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const out = new Uint8Array(end - start);
    let at = 0;
    await file.seek(start, Deno.SeekMode.Start);
    while (at < out.length) {
      const n = await file.read(out.subarray(at));
      if (n === null) break;
      at += n;
    }
    return out.subarray(0, at);
  } finally {
    file.close();
  }
}

/** The whole lines of `bytes` (read from offset `base`), each with the offset past it. */
function linesOf(bytes: Uint8Array, base: number): { lines: [string, number][]; rest: number } {
  const lines: [string, number][] = [];
  let from = 0;
  for (let i = bytes.indexOf(NL); i >= 0; i = bytes.indexOf(NL, from)) {
    if (i > from && i - from <= MAX_LINE_BYTES) {
      lines.push([decoder.decode(bytes.subarray(from, i)), base + i + 1]);
    }
    from = i + 1;
  }
  return { lines, rest: from };
}

/** The log's last records (at most `limit`, from its last `maxBytes`) and its size. */
export async function readTail(
  path: string,
  o: { limit: number; maxBytes: number },
): Promise<{ records: TailRecord[]; end: number }> {
  const size = await sizeOf(path);
  if (size === undefined || size === 0) return { records: [], end: 0 };
  const start = Math.max(0, size - o.maxBytes);
  let bytes = await readRange(path, start, size);
  let base = start;
  if (start > 0) { // from the first whole line
    const nl = bytes.indexOf(NL);
    bytes = nl < 0 ? new Uint8Array() : bytes.subarray(nl + 1);
    base = nl < 0 ? size : start + nl + 1;
  }
  const { lines, rest } = linesOf(bytes, base);
  const records: TailRecord[] = [];
  for (const [line, offset] of lines) {
    const record = parseLine(line);
    if (record) records.push({ offset, record });
  }
  return { records: records.slice(-o.limit), end: base + rest };
}

/** Options of {@linkcode followLines}. */
export interface FollowLinesOptions {
  path: string;
  /** The offset to go on from (past a line, or 0). */
  start: number;
  signal: AbortSignal;
  /** How often to look for new lines. */
  pollMs: number;
}

/**
 * The log's whole lines from `start` on, each with the offset past it, until `signal` aborts.
 * A missing log is waited for.
 */
export async function* followLines(
  o: FollowLinesOptions,
): AsyncGenerator<{ line: string; offset: number }> {
  let pos = o.start;
  while (!o.signal.aborted) {
    const size = await sizeOf(o.path);
    if (size !== undefined && size < pos) pos = 0; // truncated
    if (size !== undefined && size > pos) {
      const bytes = await readRange(o.path, pos, Math.min(size, pos + 4 * MAX_LINE_BYTES));
      const { lines, rest } = linesOf(bytes, pos);
      for (const [line, offset] of lines) yield { line, offset };
      // a line longer than the window is skipped whole
      pos = rest === 0 && bytes.length >= 4 * MAX_LINE_BYTES ? pos + bytes.length : pos + rest;
      if (lines.length > 0) continue;
    }
    await delay(o.pollMs, { signal: o.signal }).catch(() => {});
  }
}
