/**
 * Tails the event log live (`the-loop events --follow`). Polls the file: new complete lines are
 * parsed, filtered and handed on; a file that shrinks was truncated (read again from the start);
 * a file replaced by another (rotation) is drained to its end, then the new file is read from
 * its start; a missing file is waited for. A line longer than `MAX_LINE_BYTES` (1 MiB) is
 * discarded as it is read (across polls, however slowly it is written) and reported, unparsed.
 *
 * @module
 */
import { delay } from "../async/mod.ts";
import type { EventRecord } from "./record.ts";
import { compileFilter, type EventFilter } from "./filter.ts";
import { linesForward, type OversizedLine } from "./lines.ts";
import { parseLine } from "./query.ts";
import { assertLogPath, checkedReader, checkedStat, logReadError } from "./_read_error.ts";

/** Options for {@linkcode followEvents}. */
export interface FollowOptions {
  path: string;
  /** The offset to continue from (a query's `end`). */
  start: number;
  filter?: EventFilter;
  /** Called with each new matching record. */
  onRecord(record: EventRecord): void;
  /** Called when a line is not a JSON event record. */
  onSkip?(line: string): void;
  /** Called for each line skipped, unparsed, for being longer than `MAX_LINE_BYTES` (1 MiB). */
  onOversized?(line: OversizedLine): void;
  /** Called on truncation and rotation, with a one-line note. */
  onNotice?(message: string): void;
  /** Following stops when this resolves. */
  stop: Promise<void>;
  /** How often to look for new lines; default 200 ms. */
  pollMs?: number;
}

interface Open {
  file: Deno.FsFile;
  ino: number | null;
  pos: number;
  /** Set while an over-long line that began here is being discarded. */
  skipFrom?: number;
}

async function openAt(path: string, pos: number): Promise<Open | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw logReadError(path, error);
  }
  try {
    return { file, ino: (await checkedStat(file, path)).ino, pos };
  } catch (error) {
    file.close();
    throw error;
  }
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw logReadError(path, error);
  }
}

/**
 * Follows the log until `opts.stop` resolves. A log that cannot be opened or read (a directory,
 * no permission, an empty path) rejects with an error naming it; a missing one is waited for.
 */
export async function followEvents(opts: FollowOptions): Promise<void> {
  assertLogPath(opts.path);
  const keep = compileFilter(opts.filter ?? {});
  // one listener on `stop` for the whole follow (a race per poll would add one each time)
  const stopping = new AbortController();
  opts.stop.then(() => stopping.abort());
  let current = await openAt(opts.path, opts.start);
  const drain = async (cur: Open) => {
    for await (
      const batch of linesForward(checkedReader(cur.file, opts.path), {
        start: cur.pos,
        skipFrom: cur.skipFrom,
      })
    ) {
      for (const line of batch.oversized) opts.onOversized?.(line);
      for (const line of batch.lines) {
        const r = parseLine(line);
        if (!r) opts.onSkip?.(line);
        else if (keep(r)) opts.onRecord(r);
      }
      cur.pos = batch.end;
      cur.skipFrom = batch.skipFrom;
    }
  };
  try {
    while (!stopping.signal.aborted) {
      if (current) {
        const size = (await checkedStat(current.file, opts.path)).size;
        if (size < current.pos) {
          opts.onNotice?.(`${opts.path} was truncated; reading it from the start`);
          current.pos = 0;
          current.skipFrom = undefined;
        }
        await drain(current);
        const now = await statOrNull(opts.path);
        if (!now || (now.ino !== null && current.ino !== null && now.ino !== current.ino)) {
          if (now) {
            opts.onNotice?.(`${opts.path} was replaced (rotated); reading the new file`);
            await drain(current); // whatever was appended to the old file just before
            current.file.close();
            current = await openAt(opts.path, 0);
          }
        }
      } else {
        current = await openAt(opts.path, 0);
        if (current) continue;
      }
      await delay(opts.pollMs ?? 200, { signal: stopping.signal }).catch(() => {});
    }
  } finally {
    current?.file.close();
  }
}
