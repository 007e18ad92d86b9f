/**
 * Line readers over a file read by offset: forward in large chunks, or backward in blocks from
 * the end (so the last N lines of a huge log cost only the bytes they occupy). Both are linear in
 * the bytes they read: each byte is searched for a newline once and copied at most once. A line
 * longer than {@linkcode MAX_LINE_BYTES} is not assembled: its bytes are discarded as they are
 * read, and only its offset and length are reported. Neither reader ever holds more than a chunk
 * plus one line of at most that cap.
 *
 * @module
 */

/**
 * The longest line (record) the readers assemble, in bytes without its newline: 1 MiB. The
 * records the-loop writes are far shorter (a `hooks.ran` carries at most 4 KiB of each output
 * stream), so a longer line is damage or a hostile write; it is skipped, with a note, unparsed.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

/** A line longer than the cap, skipped unread. */
export interface OversizedLine {
  /** The offset of its first byte. */
  offset: number;
  /** Its length in bytes, without the newline. */
  bytes: number;
}

/** Reads bytes at an offset. Injectable so tests can count what is read. */
export interface RandomReader {
  /** Reads up to `buf.length` bytes at `offset`; resolves to the count read (0 at the end). */
  readAt(buf: Uint8Array, offset: number): Promise<number>;
}

/** A {@linkcode RandomReader} over an open file. */
export function fileReader(file: Deno.FsFile): RandomReader {
  return {
    async readAt(buf, offset) {
      await file.seek(offset, Deno.SeekMode.Start);
      return (await file.read(buf)) ?? 0;
    },
  };
}

/** Fills `buf` from `offset` unless the file ends first; resolves to the count read. */
async function readFull(reader: RandomReader, buf: Uint8Array, offset: number): Promise<number> {
  let got = 0;
  while (got < buf.length) {
    const n = await reader.readAt(buf.subarray(got), offset + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}

const NL = 10;

/** The pieces of one line joined, in one copy. */
function join(pieces: Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Options for {@linkcode linesBackward}. */
export interface BackwardOptions {
  /** Bytes read at a time; default 64 KiB. */
  blockSize?: number;
  /** Longer lines are skipped; default {@linkcode MAX_LINE_BYTES}. */
  maxLineBytes?: number;
  /** Called for each line skipped for its length, when it is met. */
  onOversized?(line: OversizedLine): void;
}

/**
 * Yields the non-empty lines of bytes `[0, end)` last first, reading `blockSize` bytes at a time
 * backwards from `end`. Stop iterating and nothing more is read.
 */
export async function* linesBackward(
  reader: RandomReader,
  end: number,
  opts: BackwardOptions = {},
): AsyncGenerator<string> {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const decoder = new TextDecoder();
  const block = new Uint8Array(opts.blockSize ?? 64 * 1024);
  let pos = end; // bytes [pos, end) have been read
  let lineEnd = end; // the end of the line being gathered (its newline, or `end`)
  let carry: Uint8Array[] = []; // that line's bytes after `pos`, in order (copies)
  let carried = 0;
  let skipping = false; // that line is over the cap: its bytes are being discarded
  while (pos > 0) {
    const start = Math.max(0, pos - block.length);
    const data = block.subarray(0, pos - start);
    const got = await readFull(reader, data, start);
    if (got < data.length) throw new Error("the file shrank while it was being read");
    pos = start;
    let stop = data.length; // data[stop..] belongs to lines already handled
    while (stop > 0) {
      const i = data.lastIndexOf(NL, stop - 1);
      if (i < 0) break;
      const from = start + i + 1; // where the line ending at `lineEnd` begins
      const bytes = lineEnd - from;
      if (skipping || bytes > max) opts.onOversized?.({ offset: from, bytes });
      else if (bytes > 0) yield decoder.decode(join([data.subarray(i + 1, stop), ...carry], bytes));
      carry = [];
      carried = 0;
      skipping = false;
      lineEnd = start + i;
      stop = i;
    }
    if (skipping || stop === 0) continue;
    if (carried + stop > max) {
      skipping = true;
      carry = [];
      carried = 0;
    } else {
      carry.unshift(data.slice(0, stop));
      carried += stop;
    }
  }
  if (skipping) opts.onOversized?.({ offset: 0, bytes: lineEnd });
  else if (carried > 0) yield decoder.decode(join(carry, carried));
}

/** A batch of complete lines and the offset just past the last of them. */
export interface LineBatch {
  lines: string[];
  /** Lines skipped for their length, in the order met. */
  oversized: OversizedLine[];
  /** Where reading continues: past the last line yielded or skipped, or past discarded bytes. */
  end: number;
  /**
   * Set when reading stopped inside a line over the cap (a follower at the end of the file):
   * where that line began. Pass it back as `skipFrom`, with `start: end`, to go on discarding it.
   */
  skipFrom?: number;
}

/** Options for {@linkcode linesForward}. */
export interface ForwardOptions {
  /** Where to start reading. */
  start: number;
  /** Also yield a last line that has no newline yet (a query); default false (a follower). */
  final?: boolean;
  /** Bytes read at a time; default 256 KiB. */
  chunkSize?: number;
  /** Longer lines are skipped; default {@linkcode MAX_LINE_BYTES}. */
  maxLineBytes?: number;
  /** A previous batch's `skipFrom`: `start` is inside an over-long line that began there. */
  skipFrom?: number;
}

/** Yields the lines from `start` on, in batches; empty lines are dropped. */
export async function* linesForward(
  reader: RandomReader,
  opts: ForwardOptions,
): AsyncGenerator<LineBatch> {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const decoder = new TextDecoder();
  const chunk = new Uint8Array(opts.chunkSize ?? 256 * 1024);
  let pos = opts.start; // the first byte not yet yielded, skipped or discarded
  let pending: Uint8Array[] = []; // bytes read after `pos`, short of a newline (copies)
  let pended = 0;
  let skipFrom = opts.skipFrom; // set while discarding an over-long line that began there
  while (true) {
    const at = pos + pended; // the offset of data[0]
    const n = await reader.readAt(chunk, at);
    if (n <= 0) break;
    const data = chunk.subarray(0, n);
    const first = data.indexOf(NL);
    if (first < 0) { // the line goes on
      if (skipFrom !== undefined) pos += n;
      else if (pended + n > max) {
        skipFrom = pos;
        pos = at + n;
        pending = [];
        pended = 0;
      } else {
        pending.push(data.slice());
        pended += n;
      }
      continue;
    }
    const lines: string[] = [];
    const oversized: OversizedLine[] = [];
    // the line that ends at `first`
    if (skipFrom !== undefined || pended + first > max) {
      const from = skipFrom ?? pos;
      oversized.push({ offset: from, bytes: at + first - from });
    } else if (pended + first > 0) {
      pending.push(data.subarray(0, first));
      lines.push(decoder.decode(join(pending, pended + first)));
    }
    skipFrom = undefined;
    // the lines wholly inside this chunk
    const last = data.lastIndexOf(NL);
    if (last > first) {
      if (last - first - 1 <= max) { // none of them can be over the cap: decode them at once
        for (const line of decoder.decode(data.subarray(first + 1, last)).split("\n")) {
          if (line) lines.push(line);
        }
      } else {
        for (let i = first; i < last;) {
          const j = data.indexOf(NL, i + 1);
          if (j - i - 1 > max) oversized.push({ offset: at + i + 1, bytes: j - i - 1 });
          else if (j > i + 1) lines.push(decoder.decode(data.subarray(i + 1, j)));
          i = j;
        }
      }
    }
    // the start of the next line
    pos = at + last + 1;
    pending = [];
    pended = 0;
    if (n - last - 1 > max) {
      skipFrom = pos;
      pos = at + n;
    } else if (n > last + 1) {
      pending = [data.slice(last + 1)];
      pended = n - last - 1;
    }
    yield { lines, oversized, end: pos, ...(skipFrom === undefined ? {} : { skipFrom }) };
  }
  if (skipFrom !== undefined) {
    const line = { offset: skipFrom, bytes: pos - skipFrom };
    if (opts.final) yield { lines: [], oversized: [line], end: pos };
    else yield { lines: [], oversized: [], end: pos, skipFrom };
  } else if (opts.final && pended > 0) {
    yield { lines: [decoder.decode(join(pending, pended))], oversized: [], end: pos + pended };
  }
}
