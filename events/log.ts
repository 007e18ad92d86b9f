/**
 * The event log writer: one JSON object per line, appended with ONE `write` per record so
 * several processes can share a log without tearing lines (O_APPEND makes each write land whole
 * at the end). The file is opened per record, so a rotated or deleted log is recreated, not
 * written into the void. A broken log never breaks the caller: it warns once and goes quiet.
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import type { Level } from "./catalog.ts";
import { buildRecord, type EventSink, type PendingEvent } from "./record.ts";

/** Options for {@linkcode EventLog}. */
export interface EventLogOptions {
  /** The JSONL file; its parent directory is created on the first write. */
  path: string;
  /** The `source` of every record: gh-webhook, poll, sessions, hooks, cli. */
  source: string;
  /** `false` emits nothing (the config's `eventLog.enabled`). Default true. */
  enabled?: boolean;
  /** Told once, when the log first cannot be written. Default: a line on stderr. */
  warn?: (message: string) => void;
  /** Throw on an event type missing from the catalog (for tests). Default false. */
  strict?: boolean;
}

const encoder = new TextEncoder();

function stderrWarn(message: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(message + "\n"));
  } catch { /* nowhere left to tell */ }
}

/** Appends event records to a JSONL file. */
export class EventLog implements EventSink {
  readonly path: string;
  readonly #source: string;
  readonly #enabled: boolean;
  readonly #warn: (message: string) => void;
  readonly #strict: boolean;
  #warned = false;
  #dirReady = false;

  constructor(opts: EventLogOptions) {
    this.path = opts.path;
    this.#source = opts.source;
    this.#enabled = opts.enabled ?? true;
    this.#warn = opts.warn ?? stderrWarn;
    this.#strict = opts.strict ?? false;
  }

  emit(event: string, fields?: Record<string, unknown>, opts?: { level?: Level }): void {
    this.emitBatch([{ event, fields, level: opts?.level }]);
  }

  /** Appends several records with ONE write: whole lines, in order, one system call. */
  emitBatch(events: readonly PendingEvent[]): void {
    if (!this.#enabled || events.length === 0) return;
    let text = "";
    for (const e of events) {
      const record = buildRecord({
        source: this.#source,
        event: e.event,
        fields: e.fields,
        level: e.level,
        strict: this.#strict,
      });
      text += JSON.stringify(record) + "\n";
    }
    try {
      this.#append(encoder.encode(text));
    } catch (error) {
      if (this.#warned) return;
      this.#warned = true;
      try {
        this.#warn(
          `the-loop: cannot write the event log ${this.path} (${messageOf(error)}); ` +
            "events are not being recorded — check the path and its permissions " +
            "(further errors are not reported)",
        );
      } catch { /* a throwing warn callback must not break the caller either */ }
    }
  }

  #append(line: Uint8Array, retried = false): void {
    if (!this.#dirReady) {
      const dir = this.path.replace(/[\\/][^\\/]*$/, "");
      if (dir && dir !== this.path) Deno.mkdirSync(dir, { recursive: true });
      this.#dirReady = true;
    }
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(this.path, { append: true, create: true, mode: 0o600 });
    } catch (error) {
      if (retried || !(error instanceof Deno.errors.NotFound)) throw error;
      this.#dirReady = false; // the directory went away: recreate it and retry once
      return this.#append(line, true);
    }
    try {
      // One write(2) for the whole line; a short write (disk full, a signal) is finished off.
      let rest = line.subarray(file.writeSync(line));
      while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
    } finally {
      file.close();
    }
  }
}
