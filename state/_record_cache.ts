/**
 * The registry's reads, kept: a session's state is its record file and its deliveries log read
 * together (`_deliveries_log.ts`), and the dispatcher asks for it several times per event — at a
 * burst, hundreds of times a second, each a read of two files and a parse of both. What was read
 * is kept with the `stat` of the two files at that moment (inode, size, modification and change
 * times) and handed out again while a `stat` of both still says the same: two system calls
 * instead of eight, and no parsing.
 *
 * Why a `stat` suffices: the log only grows (an append: a new size) until the record is replaced
 * and the log emptied with it, and the record is only ever replaced whole (a temp file renamed
 * over it). A replaced record can look the same to `stat`, though: the file system hands the freed
 * inode of one version straight to the one after next, the size is often the same (every status
 * and every `rev` is as long as the others), Deno gives the change time in whole seconds, and the
 * modification time moves in clock ticks of a few milliseconds. So a record is kept only once it
 * is {@linkcode SETTLED_MS} old: any later version is written in a later tick and has another
 * modification time. A record written just now is read afresh each time, as before.
 *
 * The stats are taken before the files are read, so what is kept is never older than its key (a
 * change meanwhile only makes the next question read again).
 *
 * @module
 */

/** How many sessions' reads are kept (past it, all are dropped and read again). */
const MAX_KEPT = 1_024;

/**
 * How old (ms) a record's modification time must be for its read to be kept: well past the
 * file-time clock's tick (1–10 ms), so no later version can share it.
 */
export const SETTLED_MS = 50;

/** A file's `stat` as a key. */
export function statKey(info: Deno.FileInfo): string {
  return `${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
}

/** The key of the file at `path`: `null` when it does not exist, `undefined` when unknown. */
function keyOf(path: string): string | null | undefined {
  try {
    return statKey(Deno.statSync(path));
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? null : undefined;
  }
}

/**
 * The key of a session's two files now: the log's `stat` and the record's. `undefined` (nothing
 * is then kept or handed out) when the record is missing, was written less than
 * {@linkcode SETTLED_MS} ago, or either file cannot be looked at.
 */
export function identityOf(recordPath: string, logPath: string, log?: string): string | undefined {
  const logKey = log ?? keyOf(logPath);
  if (logKey === undefined) return undefined;
  let record: Deno.FileInfo;
  try {
    record = Deno.statSync(recordPath);
  } catch {
    return undefined;
  }
  const mtime = record.mtime?.getTime();
  // a clock set back leaves a time in the future: never settled, never kept
  if (mtime === undefined || !(mtime <= Date.now() - SETTLED_MS)) return undefined;
  return `${logKey}|${statKey(record)}`;
}

/** Reads kept by path, each under the key of the files it was read from. */
export class RecordCache<T> {
  readonly #kept = new Map<string, { key: string; value: T }>();
  readonly #copy: (value: T) => T;

  /** `copy` gives each caller its own value (they may change what they get). */
  constructor(copy: (value: T) => T) {
    this.#copy = copy;
  }

  /** The value read under `key`, if that is still what was read. */
  get(path: string, key: string | undefined): T | undefined {
    if (key === undefined) return undefined;
    const kept = this.#kept.get(path);
    return kept?.key === key ? this.#copy(kept.value) : undefined;
  }

  /** Keeps `value` as what `path` held when its files had `key`. */
  set(path: string, key: string | undefined, value: T): void {
    if (key === undefined) return this.delete(path);
    if (this.#kept.size >= MAX_KEPT && !this.#kept.has(path)) this.#kept.clear();
    this.#kept.set(path, { key, value: this.#copy(value) });
  }

  delete(path: string): void {
    this.#kept.delete(path);
  }
}
