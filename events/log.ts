/**
 * The event log writer: one JSON object per line, appended with ONE `write` per batch so
 * several processes can share a log without tearing lines (O_APPEND makes each write land whole
 * at the end). The file stays open; before each write the path is checked to still name it
 * (one `stat`), so a rotated or deleted log is recreated, not written into the void. A broken log
 * never breaks the caller: it says so on stderr, again every minute while it lasts (a full or
 * read-only disk must not go unnoticed), and tells `onWriteError` (a daemon is then degraded).
 *
 * Records are built at once (their `ts` is the moment of the emit) and written together when
 * the code running now yields (a microtask): a daemon under load answers many requests in one
 * tick of its event loop, and their records then cost one write instead of one each. Nothing
 * waits on I/O before they are written, so a record is on disk before anything the emitter
 * goes on to await — a record that must be there before the next synchronous step passes
 * `{ flush: true }`, and {@linkcode EventLog.flush} and the process's exit write what is left.
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import { pacer } from "../async/mod.ts";
import { buildRecord, type EventSink, type PendingEvent } from "./record.ts";

/** Options for {@linkcode EventLog}. */
export interface EventLogOptions {
  /** The JSONL file; its parent directory is created on the first write. */
  path: string;
  /** The `source` of every record: gh-webhook, poll, sessions, hooks, cli. */
  source: string;
  /** `false` emits nothing (the config's `eventLog.enabled`). Default true. */
  enabled?: boolean;
  /**
   * Told when the log cannot be written: at the first failure, then at most once a minute while
   * writes keep failing. Default: a line on stderr.
   */
  warn?: (message: string) => void;
  /**
   * Told each failed write (why), and `undefined` at the first write that succeeds after one
   * failed: a daemon's degraded reasons follow it.
   */
  onWriteError?: (message: string | undefined) => void;
  /** Throw on an event type missing from the catalog (for tests). Default false. */
  strict?: boolean;
  /**
   * How long (ms) the open file is trusted to still be the log before the path is checked again
   * (one `stat`): 0 (the default) checks before every write. A daemon under load passes a few
   * milliseconds; records written in that time after a rotation go to the rotated file.
   */
  recheckMs?: number;
  /**
   * Under load, write at most once every this many milliseconds (ms): records emitted within the
   * interval after a write wait for the next one, at most this long, so a thread answering
   * thousands of requests a second makes one `write` per interval instead of one per tick. A
   * record after a quiet spell is still written at the end of its tick, and `flush()` and the
   * process's exit write at once. Default 0: at the end of every tick.
   */
  paceMs?: number;
  /** The clock of `recheckMs` and `paceMs` (ms); for tests. */
  now?: () => number;
}

const encoder = new TextEncoder();
/** How often (ms) a log that keeps failing is said again. */
const WARN_EVERY_MS = 60_000;

/** What another thread needs to write to the same log as an {@linkcode EventLog}. */
export type EventLogSettings = Pick<
  EventLogOptions,
  "path" | "source" | "enabled" | "recheckMs" | "paceMs"
>;

/** Options of {@linkcode EventLog.emit}: write now when `flush`. */
type EmitOptions = Parameters<EventSink["emit"]>[2];

/** Logs holding records not written yet: written at the process's exit (`unload`). */
const UNFLUSHED = new Set<EventLog>();
let exitHook = false;

function flushAllAtExit(): void {
  for (const log of [...UNFLUSHED]) log.flush();
}

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
  readonly #onWriteError: ((message: string | undefined) => void) | undefined;
  #warnedAt = -Infinity;
  #failing = false;
  #dirReady = false;
  #pending = "";
  #file: Deno.FsFile | undefined;
  readonly #recheckMs: number;
  readonly #now: () => number;
  #checkedAt = -Infinity;
  #id: { ino: number | null; dev: number } = { ino: null, dev: 0 };
  readonly #paceMs: number;
  readonly #pace: ReturnType<typeof pacer>;

  constructor(opts: EventLogOptions) {
    this.path = opts.path;
    this.#source = opts.source;
    this.#enabled = opts.enabled ?? true;
    this.#warn = opts.warn ?? stderrWarn;
    this.#strict = opts.strict ?? false;
    this.#onWriteError = opts.onWriteError;
    this.#recheckMs = opts.recheckMs ?? 0;
    this.#now = opts.now ?? (() => performance.now());
    this.#paceMs = opts.paceMs ?? 0;
    this.#pace = pacer(() => this.flush(), { intervalMs: this.#paceMs, now: this.#now });
  }

  /** The settings another thread (a worker) passes to its own `EventLog` to write here too. */
  get settings(): EventLogSettings {
    return {
      path: this.path,
      source: this.#source,
      enabled: this.#enabled,
      recheckMs: this.#recheckMs,
      paceMs: this.#paceMs,
    };
  }

  emit(event: string, fields?: Record<string, unknown>, opts?: EmitOptions): void {
    this.emitBatch([{ event, fields, level: opts?.level }]);
    if (opts?.flush) this.flush();
  }

  /** Appends several records, whole lines in order, with the next write. */
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
    if (this.#pending === "") {
      if (!exitHook) {
        exitHook = true;
        globalThis.addEventListener("unload", flushAllAtExit);
      }
      UNFLUSHED.add(this);
      this.#pace.schedule();
    }
    this.#pending += text;
  }

  /** Writes the records not written yet (one write); nothing when there are none. */
  flush(): void {
    const text = this.#pending;
    if (text === "") return;
    this.#pending = "";
    UNFLUSHED.delete(this);
    this.#pace.ran();
    try {
      this.#append(encoder.encode(text));
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (this.#failing) {
      this.#failing = false;
      this.#warnedAt = -Infinity;
      this.#tell(undefined);
    }
  }

  /** Whether the last write failed. */
  get failing(): boolean {
    return this.#failing;
  }

  #failed(error: unknown): void {
    this.#failing = true;
    const why = `cannot write the event log ${this.path} (${messageOf(error)})`;
    this.#tell(why);
    const now = this.#now();
    if (now - this.#warnedAt < WARN_EVERY_MS) return;
    this.#warnedAt = now;
    try {
      this.#warn(
        `the-loop: ${why}; events are not being recorded — free space on its disk, or check ` +
          `the path and its permissions (said again every ${
            WARN_EVERY_MS / 1000
          } s while it lasts)`,
      );
    } catch { /* a throwing warn callback must not break the caller either */ }
  }

  #tell(message: string | undefined): void {
    try {
      this.#onWriteError?.(message);
    } catch { /* a throwing callback must not break the caller */ }
  }

  /** Closes the file (the next write opens it again). */
  close(): void {
    this.flush();
    this.#file?.close();
    this.#file = undefined;
  }

  /**
   * The open log file, opened again when the path no longer names it (rotated away or deleted:
   * its device and inode changed or it is gone), so records never go into the void.
   */
  #open(retried = false): Deno.FsFile {
    if (this.#file) {
      const now = this.#now();
      if (this.#recheckMs > 0 && now - this.#checkedAt < this.#recheckMs) return this.#file;
      this.#checkedAt = now;
      let same = false;
      try {
        const now = Deno.statSync(this.path);
        same = now.ino === this.#id.ino && now.dev === this.#id.dev;
      } catch { /* gone: opened again below */ }
      if (same) return this.#file;
      this.#file.close();
      this.#file = undefined;
    }
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
      return this.#open(true);
    }
    try {
      const { ino, dev } = file.statSync();
      this.#id = { ino, dev };
    } catch (error) {
      file.close();
      throw error;
    }
    this.#checkedAt = this.#now();
    return this.#file = file;
  }

  #append(line: Uint8Array): void {
    const file = this.#open();
    try {
      // One write(2) for the whole batch; a short write (disk full, a signal) is finished off.
      let rest = line.subarray(file.writeSync(line));
      while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
    } catch (error) {
      this.#file = undefined;
      try {
        file.close();
      } catch { /* already unusable */ }
      throw error;
    }
  }
}
