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
 * modification time is as coarse as the file system keeps it (a clock tick of a few milliseconds,
 * or a whole second on some). Versions written within one such granule can share every field.
 *
 * So a record's read is kept only when it was made at least one granule (on this process's own
 * monotonic clock, {@linkcode settleMsOf}) after this process first saw the record's `stat`: the
 * version then seen was written before that first look, any other version with the same `stat`
 * within the same granule, so before the read — what was read is the last of them, and any later
 * version has another modification time. No file time is compared with a clock, so clock steps and
 * a file server's clock do not matter. For the first granule after a change, every question reads
 * afresh, as before. The log needs no such wait: while the record's version holds, the log only
 * grows.
 *
 * The stats are taken before the files are read, so what is kept is never older than its key (a
 * change meanwhile only makes the next question read again).
 *
 * @module
 */

/** How many sessions' reads are kept (past it, all are dropped and read again). */
const MAX_KEPT = 1_024;

/** The granule assumed for file times with sub-100 ms digits: well past a clock tick (1–10 ms). */
export const SETTLED_MS = 50;
/** The granule assumed for file times in whole tenths of a second or coarser (FAT keeps 2 s). */
export const COARSE_SETTLED_MS = 3_000;

/** How long a record with modification time `mtimeMs` must have been seen before a read is kept. */
export function settleMsOf(mtimeMs: number): number {
  return mtimeMs % 100 === 0 ? COARSE_SETTLED_MS : SETTLED_MS;
}

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

/** What a session's two files looked like at one moment. */
export interface Identity {
  /** The record's `stat`. */
  record: string;
  /** The log's `stat` (`null`: no log). */
  log: string | null;
  /** How long the record's `stat` must have been seen before a read is kept. */
  settleMs: number;
  /** When (`performance.now()`) the files were looked at: before they are read. */
  at: number;
}

/**
 * The `stat` of a session's two files now, the log's first; `undefined` (nothing is then kept or
 * handed out) when the record is missing or either file cannot be looked at. `log`: the log's
 * `stat` when the caller has it (just appended to it).
 */
export function identityOf(
  recordPath: string,
  logPath: string,
  log?: Deno.FileInfo,
): Identity | undefined {
  const at = performance.now();
  const logKey = log ? statKey(log) : keyOf(logPath);
  if (logKey === undefined) return undefined;
  let record: Deno.FileInfo;
  try {
    record = Deno.statSync(recordPath);
  } catch {
    return undefined;
  }
  const mtime = record.mtime?.getTime();
  if (mtime === undefined) return undefined;
  return { record: statKey(record), log: logKey, settleMs: settleMsOf(mtime), at };
}

interface Kept<T> {
  record: string;
  /** When this process first saw the record's `stat` (`performance.now()`). */
  since: number;
  log: string | null;
  /** What was read, once it may be handed out. */
  value?: T;
}

/** Reads kept by path, each under the `stat` of the files it was read from. */
export class RecordCache<T> {
  readonly #kept = new Map<string, Kept<T>>();
  readonly #copy: (value: T) => T;

  /** `copy` gives each caller its own value (they may change what they get). */
  constructor(copy: (value: T) => T) {
    this.#copy = copy;
  }

  /** The value read when the files looked as they do now (`id`), if one may be handed out. */
  get(path: string, id: Identity | undefined): T | undefined {
    if (id === undefined) return undefined;
    const kept = this.#kept.get(path);
    if (!kept || kept.record !== id.record || kept.log !== id.log) return undefined;
    return kept.value === undefined ? undefined : this.#copy(kept.value);
  }

  /**
   * Keeps `value` as what `path` held when its files looked like `id` (looked at before they were
   * read); it is handed out only when that look came a granule after the record's `stat` was
   * first seen.
   */
  set(path: string, id: Identity | undefined, value: T): void {
    if (id === undefined) return this.delete(path);
    let kept = this.#kept.get(path);
    if (!kept || kept.record !== id.record) {
      if (!kept && this.#kept.size >= MAX_KEPT) this.#kept.clear();
      kept = { record: id.record, since: id.at, log: id.log };
      this.#kept.set(path, kept);
    }
    kept.log = id.log;
    kept.value = id.at >= kept.since + id.settleMs ? this.#copy(value) : undefined;
  }

  delete(path: string): void {
    this.#kept.delete(path);
  }
}
