/**
 * Builds one event record: the common fields, then the scrubbed per-type fields. Shared by
 * every sink so a test's `MemorySink` sees exactly what the log file would hold.
 *
 * @module
 */
import { defaultLevel, isCatalogued, type Level, LEVELS } from "./catalog.ts";
import { scrubField } from "./scrub.ts";

/** One line of the event log. */
export interface EventRecord {
  /** UTC ISO-8601 with milliseconds. */
  ts: string;
  source: string;
  event: string;
  level: Level;
  pid: number;
  [k: string]: unknown;
}

/** One event waiting to be emitted (see {@linkcode EventSink.emitBatch}). */
export interface PendingEvent {
  event: string;
  fields?: Record<string, unknown>;
  level?: Level;
}

/**
 * Where events go. `emit` never throws (except a strict test sink on an uncatalogued type).
 * `flush: true` asks a sink that writes records in batches (the event log) to write this one,
 * and those before it, now: for a record that must be on disk before the emitter's next
 * synchronous step.
 */
export interface EventSink {
  emit(
    event: string,
    fields?: Record<string, unknown>,
    opts?: { level?: Level; flush?: boolean },
  ): void;
  /**
   * Emits several events at once, in order. Optional: a sink without it gets one `emit` each.
   * The event log writes them with one `write`, so a burst (a hook chain's records) costs one
   * system call and still lands as whole lines.
   */
  emitBatch?(events: readonly PendingEvent[]): void;
}

/** Emits `events` through `sink`, as one batch when the sink can take one. */
export function emitAll(sink: EventSink, events: readonly PendingEvent[]): void {
  if (events.length === 0) return;
  if (sink.emitBatch) return sink.emitBatch(events);
  for (const e of events) sink.emit(e.event, e.fields, e.level ? { level: e.level } : undefined);
}

const COMMON = new Set(["ts", "source", "event", "level", "pid"]);

/** Options for {@linkcode buildRecord}. */
export interface BuildOptions {
  source: string;
  event: string;
  fields?: Record<string, unknown>;
  level?: Level;
  /** Throw on a type missing from the catalog. */
  strict?: boolean;
}

/** Builds the record for one emit. The common fields always win over same-named fields. */
export function buildRecord(opts: BuildOptions): EventRecord {
  if (opts.strict && !isCatalogued(opts.event)) {
    throw new Error(
      `event type '${opts.event}' is not in the catalog; add it to events/catalog.ts`,
    );
  }
  const level = opts.level && LEVELS.includes(opts.level) ? opts.level : defaultLevel(opts.event);
  const record: EventRecord = {
    ts: new Date().toISOString(),
    source: opts.source,
    event: opts.event,
    level,
    pid: Deno.pid,
  };
  const fields = opts.fields;
  if (fields === undefined) return record;
  for (const k of Object.keys(fields)) {
    if (COMMON.has(k)) continue;
    const clean = scrubField(k, fields[k], 1);
    if (clean !== undefined) record[k] = clean;
  }
  return record;
}
