/**
 * Line readers over a file read by offset: forward in large chunks, or backward in blocks from
 * the end (so the last N lines of a huge log cost only the bytes they occupy). Neither ever holds
 * more than a chunk plus one line in memory.
 *
 * @module
 */

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

/**
 * Yields the non-empty lines of bytes `[0, end)` last first, reading `blockSize` bytes at a time
 * backwards from `end`. Stop iterating and nothing more is read.
 */
export async function* linesBackward(
  reader: RandomReader,
  end: number,
  blockSize = 64 * 1024,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pos = end;
  let carry = new Uint8Array(0); // the start of a line whose beginning is further back
  while (pos > 0) {
    const start = Math.max(0, pos - blockSize);
    const data = new Uint8Array(pos - start + carry.length);
    const got = await readFull(reader, data.subarray(0, pos - start), start);
    if (got < pos - start) throw new Error("the file shrank while it was being read");
    data.set(carry, pos - start);
    pos = start;
    let lineEnd = data.length;
    for (let i = data.length - 1; i >= 0; i--) {
      if (data[i] !== NL) continue;
      if (lineEnd > i + 1) yield decoder.decode(data.subarray(i + 1, lineEnd));
      lineEnd = i;
    }
    carry = data.slice(0, lineEnd);
  }
  if (carry.length > 0) yield decoder.decode(carry);
}

/** A batch of complete lines and the offset just past the last of them. */
export interface LineBatch {
  lines: string[];
  end: number;
}

/** Options for {@linkcode linesForward}. */
export interface ForwardOptions {
  /** Where to start reading. */
  start: number;
  /** Also yield a last line that has no newline yet (a query); default false (a follower). */
  final?: boolean;
  chunkSize?: number;
}

/** Yields the lines from `start` on, in batches; empty lines are dropped. */
export async function* linesForward(
  reader: RandomReader,
  opts: ForwardOptions,
): AsyncGenerator<LineBatch> {
  const decoder = new TextDecoder();
  const chunk = new Uint8Array(opts.chunkSize ?? 256 * 1024);
  let pos = opts.start; // the offset of the first byte not yet in a yielded line
  let pending = new Uint8Array(0); // bytes read after `pos`, short of a newline
  while (true) {
    const n = await reader.readAt(chunk, pos + pending.length);
    if (n <= 0) break;
    let data = chunk.subarray(0, n);
    if (pending.length > 0) {
      const joined = new Uint8Array(pending.length + n);
      joined.set(pending);
      joined.set(data, pending.length);
      data = joined;
    }
    const last = data.lastIndexOf(NL);
    if (last < 0) {
      pending = data.slice();
      continue;
    }
    const lines = decoder.decode(data.subarray(0, last)).split("\n").filter((l) => l);
    pending = data.slice(last + 1);
    pos += last + 1;
    yield { lines, end: pos };
  }
  if (opts.final && pending.length > 0) {
    yield { lines: [decoder.decode(pending)], end: pos + pending.length };
  }
}
