import assert from "node:assert/strict";
import { type ByteReader, hostLines, streamReader } from "./_host_lines.ts";

/** A reader that hands out `bytes` at most `step` at a time. */
function reader(bytes: Uint8Array, step: number): ByteReader {
  let at = 0;
  return {
    read(p) {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(step, p.length, bytes.length - at);
      p.set(bytes.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  };
}

async function linesOf(text: string, step: number, chunkBytes?: number): Promise<string[]> {
  const out: string[] = [];
  const bytes = new TextEncoder().encode(text);
  for await (const line of hostLines(reader(bytes, step), { chunkBytes })) out.push(line);
  return out;
}

Deno.test("hostLines: lines whole, whatever the reads cut", async () => {
  const text = '{"a":"é€😀日本"}\n\n{"b":2}\n{"c":3}\nno newline at the end';
  const want = ['{"a":"é€😀日本"}', "", '{"b":2}', '{"c":3}'];
  for (const step of [1, 2, 3, 5, 7, 64, 1 << 16]) {
    assert.deepEqual(await linesOf(text, step), want, `reads of ${step} bytes`);
  }
});

Deno.test("hostLines: a line of megabytes across many reads, and the one after it", async () => {
  const long = "x€".repeat(1_500_000); // 6 MB, a multibyte character across many read edges
  const lines = await linesOf(`${long}\n{"after":true}\n`, 7 * 1024, 16 * 1024);
  assert.equal(lines.length, 2);
  assert.equal(lines[0].length, long.length);
  assert.ok(lines[0] === long);
  assert.equal(lines[1], '{"after":true}');
});

Deno.test("streamReader: a stream's chunks, larger or smaller than the reads, or empty", async () => {
  const enc = new TextEncoder();
  const chunks = ['{"a":1}\n{"b":', "", '2}\n{"c":"', "y".repeat(100_000), '"}\n'];
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(enc.encode(s));
      c.close();
    },
  });
  const lines: string[] = [];
  for await (const line of hostLines(streamReader(stream), { chunkBytes: 4096 })) lines.push(line);
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', `{"c":"${"y".repeat(100_000)}"}`]);
});
