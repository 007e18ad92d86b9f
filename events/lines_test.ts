import assert from "node:assert/strict";
import {
  type LineBatch,
  linesBackward,
  linesForward,
  type OversizedLine,
  type RandomReader,
} from "./lines.ts";

const enc = new TextEncoder();

/** A reader over bytes in memory that counts what it hands out. */
function countingReader(bytes: () => Uint8Array): RandomReader & { read: number } {
  const r = {
    read: 0,
    readAt(buf: Uint8Array, offset: number) {
      const all = bytes();
      const part = all.subarray(offset, Math.min(all.length, offset + buf.length));
      buf.set(part);
      r.read += part.length;
      return Promise.resolve(part.length);
    },
  };
  return r;
}

async function forward(reader: RandomReader, opts: Parameters<typeof linesForward>[1]) {
  const batches: LineBatch[] = [];
  for await (const b of linesForward(reader, opts)) batches.push(b);
  return {
    lines: batches.flatMap((b) => b.lines),
    oversized: batches.flatMap((b) => b.oversized),
    last: batches.at(-1),
  };
}

Deno.test("line readers skip lines over the cap, saying where and how long, at any block size", async () => {
  const MAX = 40;
  const lines = [
    "o".repeat(95), // over, at offset 0
    "a".repeat(10),
    "b".repeat(MAX + 1), // over by one byte
    "c".repeat(MAX), // exactly the cap: kept
    "",
    "d".repeat(200),
    "e".repeat(90), // two over-long lines in a row
    "short",
    "é".repeat(21), // 21 characters, 42 bytes: the cap counts bytes
    "f".repeat(5),
  ];
  const tail = "g".repeat(100); // over, and no newline yet
  const text = lines.join("\n") + "\n" + tail;
  const bytes = enc.encode(text);
  const kept: string[] = [];
  const over: OversizedLine[] = [];
  let offset = 0;
  for (const l of [...lines, tail]) {
    const n = enc.encode(l).length;
    if (n > MAX) over.push({ offset, bytes: n });
    else if (n > 0 && l !== tail) kept.push(l);
    offset += n + 1;
  }
  assert.equal(over.length, 6);
  for (const size of [1, 7, 41, 64, 4096]) {
    const back: string[] = [];
    const backOver: OversizedLine[] = [];
    const opts = {
      blockSize: size,
      maxLineBytes: MAX,
      onOversized: (l: OversizedLine) => backOver.push(l),
    };
    for await (const l of linesBackward(countingReader(() => bytes), bytes.length, opts)) {
      back.push(l);
    }
    assert.deepEqual(back.reverse(), kept, `backward, block ${size}`);
    assert.deepEqual(backOver.reverse(), over, `backward, block ${size}`);

    const query = await forward(countingReader(() => bytes), {
      start: 0,
      final: true,
      chunkSize: size,
      maxLineBytes: MAX,
    });
    assert.deepEqual(query.lines, kept, `forward, chunk ${size}`);
    assert.deepEqual(query.oversized, over, `forward, chunk ${size}`);
    assert.equal(query.last?.end, bytes.length);
    assert.equal(query.last?.skipFrom, undefined);

    // a follower: the unfinished over-long tail is being discarded, and says where it began
    const follow = await forward(countingReader(() => bytes), {
      start: 0,
      chunkSize: size,
      maxLineBytes: MAX,
    });
    assert.deepEqual(follow.lines, kept);
    assert.deepEqual(follow.oversized, over.slice(0, -1));
    assert.deepEqual([follow.last?.end, follow.last?.skipFrom], [
      bytes.length,
      over.at(-1)!.offset,
    ]);
  }
});

Deno.test("a follower discards an over-long line across reads without reading a byte twice", async () => {
  let file = enc.encode("ok1\n" + "x".repeat(100));
  const grow = (text: string) => {
    const more = enc.encode(text);
    const next = new Uint8Array(file.length + more.length);
    next.set(file);
    next.set(more, file.length);
    file = next;
  };
  const reader = countingReader(() => file);
  const opts = { chunkSize: 16, maxLineBytes: 40 };
  const first = await forward(reader, { start: 0, ...opts });
  assert.deepEqual(first.lines, ["ok1"]);
  assert.deepEqual([first.last?.end, first.last?.skipFrom], [104, 4]);
  grow("x".repeat(100));
  const second = await forward(reader, { start: 104, skipFrom: 4, ...opts });
  assert.deepEqual([second.lines, second.oversized], [[], []]);
  assert.deepEqual([second.last?.end, second.last?.skipFrom], [204, 4]);
  grow("x".repeat(10) + "\nok2\n");
  const third = await forward(reader, { start: 204, skipFrom: 4, ...opts });
  assert.deepEqual(third.lines, ["ok2"]);
  assert.deepEqual(third.oversized, [{ offset: 4, bytes: 210 }]);
  assert.deepEqual([third.last?.end, third.last?.skipFrom], [file.length, undefined]);
  assert.equal(reader.read, file.length); // every byte read once: linear, however slow the writer
});

/**
 * A log of `ok1`, one `lineBytes`-byte line of `x` and `ok2`, served without ever being held in
 * memory. Each read checks that the reader under test holds no more than `cap` bytes more than
 * when it started (ArrayBuffers count as V8 external memory), so a reader that gathered the long
 * line would fail as soon as it had gathered `cap` of it, not after a slow quadratic crawl.
 */
function hugeLineLog(
  lineBytes: number,
  cap: number,
): RandomReader & { size: number; read: number } {
  const head = enc.encode("ok1\n");
  const tail = enc.encode("\nok2\n");
  const size = head.length + lineBytes + tail.length;
  const base = Deno.memoryUsage().external;
  const r = {
    size,
    read: 0,
    readAt(buf: Uint8Array, offset: number) {
      const held = Deno.memoryUsage().external - base;
      if (held > cap) throw new Error(`the reader holds ${held} bytes at offset ${offset}`);
      const n = Math.max(0, Math.min(buf.length, size - offset));
      for (let i = 0; i < n;) {
        const at = offset + i;
        if (at < head.length) buf[i++] = head[at];
        else if (at >= size - tail.length) buf[i++] = tail[at - (size - tail.length)];
        else {
          const run = Math.min(n - i, size - tail.length - at);
          buf.fill(120, i, i + run);
          i += run;
        }
      }
      r.read += n;
      return Promise.resolve(n);
    },
  };
  return r;
}

Deno.test("a 200 MiB line is skipped in constant memory, each byte read once, both ways", async () => {
  const LINE = 200 * 1024 * 1024;
  const CAP = 8 * 1024 * 1024; // a 1 MiB line cap, a chunk or two, and slack
  const fwd = hugeLineLog(LINE, CAP);
  const q = await forward(fwd, { start: 0, final: true });
  assert.deepEqual(q.lines, ["ok1", "ok2"]);
  assert.deepEqual(q.oversized, [{ offset: 4, bytes: LINE }]);
  assert.equal(fwd.read, fwd.size);

  const back = hugeLineLog(LINE, CAP);
  const got: string[] = [];
  const over: OversizedLine[] = [];
  for await (const l of linesBackward(back, back.size, { onOversized: (o) => over.push(o) })) {
    got.push(l);
  }
  assert.deepEqual(got, ["ok2", "ok1"]);
  assert.deepEqual(over, [{ offset: 4, bytes: LINE }]);
  assert.equal(back.read, back.size);
});
