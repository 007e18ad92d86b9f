/**
 * The sinks that are not files: {@linkcode MemorySink} for tests and {@linkcode NULL_SINK} for
 * code that has nowhere to report.
 *
 * @module
 */
import type { Level } from "./catalog.ts";
import { buildRecord, type EventRecord, type EventSink } from "./record.ts";

/** Options for {@linkcode MemorySink}. */
export interface MemorySinkOptions {
  /** The `source` of every record; default `test`. */
  source?: string;
  /** Throw on an event type missing from the catalog. Default false. */
  strict?: boolean;
}

/** Keeps records in memory, built exactly as the log writes them (scrubbed, defaults filled). */
export class MemorySink implements EventSink {
  /** Every record emitted, oldest first. */
  readonly records: EventRecord[] = [];
  readonly #source: string;
  readonly #strict: boolean;

  constructor(opts: MemorySinkOptions = {}) {
    this.#source = opts.source ?? "test";
    this.#strict = opts.strict ?? false;
  }

  emit(event: string, fields?: Record<string, unknown>, opts?: { level?: Level }): void {
    this.records.push(
      buildRecord({
        source: this.#source,
        event,
        fields,
        level: opts?.level,
        strict: this.#strict,
      }),
    );
  }

  /** The records of one type (a convenience for assertions). */
  ofType(event: string): EventRecord[] {
    return this.records.filter((r) => r.event === event);
  }
}

/** A sink that drops everything. */
export const NULL_SINK: EventSink = Object.freeze({ emit() {} });
