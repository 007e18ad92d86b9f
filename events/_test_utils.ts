/**
 * Test helpers for the event log: one record's JSONL text, a small recursive directory walk
 * (no std library here), and a memory sink a test can wait on ({@linkcode AwaitedSink}).
 *
 * @module
 */
import type { EventRecord } from "./record.ts";
import { MemorySink } from "./sinks.ts";

/**
 * One event record as the log holds it (without the newline): `hooks.ran` from source `hooks`,
 * level `info`, pid 1, at 2026-07-22T10:00:00.000Z, unless `fields` says otherwise (in the
 * log's key order; further fields follow).
 */
export function eventLine(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ts: "2026-07-22T10:00:00.000Z",
    source: "hooks",
    event: "hooks.ran",
    level: "info",
    pid: 1,
    ...fields,
  });
}

/** Options for {@linkcode walk}. */
export interface WalkOptions {
  /** File name ending to keep, e.g. `.ts`. */
  ext: string;
  /** Directory names not to enter. */
  skip: string[];
}

/** Yields the paths of matching files under `dir`. */
export async function* walk(dir: string, opts: WalkOptions): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir.replace(/\/$/, "")}/${entry.name}`;
    if (entry.isDirectory && !opts.skip.includes(entry.name)) yield* walk(path, opts);
    else if (entry.isFile && entry.name.endsWith(opts.ext)) yield path;
  }
}

/** A {@linkcode MemorySink} whose records a test can wait for (no polling, no sleep). */
export class AwaitedSink extends MemorySink {
  #waiters: { match: (r: EventRecord) => boolean; resolve: (r: EventRecord) => void }[] = [];

  override emit(...args: Parameters<MemorySink["emit"]>): void {
    super.emit(...args);
    const record = this.records[this.records.length - 1];
    this.#waiters = this.#waiters.filter((w) => !(w.match(record) && (w.resolve(record), true)));
  }

  /** Resolves with the first record of type `event` (matching `match`), past or to come. */
  until(event: string, match: (r: EventRecord) => boolean = () => true): Promise<EventRecord> {
    const m = (r: EventRecord) => r.event === event && match(r);
    const seen = this.records.find(m);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match: m, resolve }));
  }
}
