import assert from "node:assert/strict";
import { followEvents, queryEvents } from "./mod.ts";
import { linesBackward, linesForward, type RandomReader } from "./lines.ts";
import { eventLine } from "./_test_utils.ts";
import { tailRecords } from "./query.ts";
import { MAX_LINE_BYTES } from "./lines.ts";

/** A reader over bytes in memory that counts what it hands out. */
function countingReader(bytes: Uint8Array): RandomReader & { read: number } {
  const r = {
    read: 0,
    readAt(buf: Uint8Array, offset: number) {
      const part = bytes.subarray(offset, Math.min(bytes.length, offset + buf.length));
      buf.set(part);
      r.read += part.length;
      return Promise.resolve(part.length);
    },
  };
  return r;
}

const line = (i: number) => eventLine({ source: "poll", event: "poll.checked", seq: i });

Deno.test("tailRecords reads only the end of a large log", async () => {
  const text = Array.from({ length: 100_000 }, (_, i) => line(i)).join("\n") + "\n";
  const bytes = new TextEncoder().encode(text);
  assert.ok(bytes.length > 9_000_000);
  const reader = countingReader(bytes);
  const { records, skipped } = await tailRecords(reader, bytes.length, 50);
  assert.deepEqual(records.map((r) => r.seq), Array.from({ length: 50 }, (_, i) => 99_950 + i));
  assert.equal(skipped, 0);
  assert.ok(reader.read <= 64 * 1024, `read ${reader.read} bytes for 50 lines`);
  // asking for more lines reads proportionally more, still far from the whole file
  const r2 = countingReader(bytes);
  assert.equal((await tailRecords(r2, bytes.length, 2000)).records.length, 2000);
  const need = new TextEncoder().encode(text.split("\n").slice(-2001).join("\n")).length;
  assert.ok(r2.read < need + 2 * 64 * 1024, `read ${r2.read} bytes for 2000 lines (${need})`);
});

Deno.test("tailRecords skips malformed lines and still returns N records", async () => {
  const text = [line(1), line(2), "garbage", "[1]", '{"no":"event"}', line(3), ""].join("\n");
  const bytes = new TextEncoder().encode(text);
  const out = await tailRecords(countingReader(bytes), bytes.length, 2);
  assert.deepEqual(out.records.map((r) => r.seq), [2, 3]);
  assert.equal(out.skipped, 3);
});

Deno.test("backward and forward line readers agree across block edges and UTF-8", async () => {
  const lines = Array.from(
    { length: 300 },
    (_, i) => "é✓🙂".repeat(i % 17) + `#${i}` + "x".repeat(i % 23),
  );
  const text = lines.join("\n") + "\n\n" + "tail-without-newline";
  const bytes = new TextEncoder().encode(text);
  const want = [...lines, "tail-without-newline"];
  for (const size of [1, 7, 64, 4096]) {
    const back: string[] = [];
    for await (const l of linesBackward(countingReader(bytes), bytes.length, { blockSize: size })) {
      back.push(l);
    }
    assert.deepEqual(back.reverse(), want, `block ${size}`);
    const fwd: string[] = [];
    let end = 0;
    for await (const b of linesForward(countingReader(bytes), { start: 0, chunkSize: size })) {
      fwd.push(...b.lines);
      end = b.end;
    }
    assert.deepEqual(fwd, lines, `chunk ${size}`); // without `final`, the unfinished line waits
    assert.equal(end, bytes.length - "tail-without-newline".length);
    const all: string[] = [];
    for await (
      const b of linesForward(countingReader(bytes), { start: 0, chunkSize: size, final: true })
    ) {
      all.push(...b.lines);
    }
    assert.deepEqual(all, want);
  }
});

Deno.test("queryEvents: missing file, filtered ring buffer, limit 0 streaming, skipped count", async () => {
  const dir = Deno.makeTempDirSync();
  assert.deepEqual(await queryEvents({ path: `${dir}/nope.jsonl`, limit: 5 }), {
    exists: false,
    records: [],
    skipped: 0,
    end: 0,
  });
  const path = `${dir}/events.jsonl`;
  const rows = Array.from(
    { length: 1000 },
    (_, i) => eventLine({ event: i % 3 === 0 ? "hooks.ran" : "hooks.decided", seq: i }),
  );
  rows.splice(500, 0, "{torn", "");
  Deno.writeTextFileSync(path, rows.join("\n") + "\n");
  const last = await queryEvents({ path, limit: 4, filter: { types: ["hooks.ran"] } });
  assert.deepEqual(last.records.map((r) => r.seq), [987, 990, 993, 996, 999].slice(1));
  assert.equal(last.skipped, 1);
  assert.equal(last.end, Deno.statSync(path).size);
  const seen: number[] = [];
  const streamed = await queryEvents({
    path,
    limit: 0,
    filter: { types: ["hooks.ran"] },
    onRecord: (r) => seen.push(r.seq as number),
  });
  assert.equal(streamed.records.length, 0);
  assert.equal(seen.length, 334);
  const everything = await queryEvents({ path, limit: 0 });
  assert.equal(everything.records.length, 1000);
  const tail = await queryEvents({ path, limit: 3 });
  assert.deepEqual(tail.records.map((r) => r.seq), [997, 998, 999]);
});

Deno.test("queryEvents and followEvents name an unreadable log and where its path comes from", async () => {
  const dir = Deno.makeTempDirSync();
  const hint = "; check eventLog.path in the config or pass --file";
  for (const limit of [0, 5]) {
    await assert.rejects(
      queryEvents({ path: dir, limit }),
      (e: Error) => e.message === `cannot read the event log ${dir} (Is a directory)${hint}`,
    );
    await assert.rejects(
      queryEvents({ path: "", limit }),
      (e: Error) => e.message === `cannot read the event log "" (the path is empty)${hint}`,
    );
  }
  const never = new Promise<void>(() => {});
  await assert.rejects(
    followEvents({ path: dir, start: 0, onRecord: () => {}, stop: never }),
    (e: Error) => e.message.startsWith(`cannot read the event log ${dir} (Is a directory`),
  );
  await assert.rejects(
    followEvents({ path: "", start: 0, onRecord: () => {}, stop: never }),
    /cannot read the event log "" \(the path is empty\); check eventLog\.path/,
  );
  // an error thrown by the caller's onRecord is not mistaken for a read failure
  const path = `${dir}/events.jsonl`;
  Deno.writeTextFileSync(path, line(1) + "\n");
  await assert.rejects(
    queryEvents({
      path,
      limit: 0,
      onRecord: () => {
        throw new Error("Broken pipe (os error 32)");
      },
    }),
    (e: Error) => e.message === "Broken pipe (os error 32)",
  );
});

Deno.test("queryEvents skips a line over the cap unparsed: tail read and filtered scan alike", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const head = Array.from({ length: 10 }, (_, i) => line(i) + "\n").join("");
  const big = JSON.stringify({ ...JSON.parse(line(10)), pad: "x".repeat(MAX_LINE_BYTES) });
  Deno.writeTextFileSync(path, head + big + "\n" + line(11) + "\n" + line(12) + "\n");
  const want = { offset: new TextEncoder().encode(head).length, bytes: big.length };
  for (const filter of [undefined, { types: ["poll.*"] }]) {
    const over: unknown[] = [];
    const r = await queryEvents({ path, limit: 4, filter, onOversized: (l) => over.push(l) });
    assert.deepEqual(r.records.map((x) => x.seq), [8, 9, 11, 12]);
    assert.equal(r.skipped, 0); // not counted as malformed: reported apart
    assert.deepEqual(over, [want]);
  }
  // a line of exactly the cap is a record; one byte more is not
  const sized = (bytes: number) => {
    const rec = { ...JSON.parse(line(13)), pad: "" };
    return JSON.stringify({ ...rec, pad: "x".repeat(bytes - JSON.stringify(rec).length) });
  };
  for (const [bytes, seqs] of [[MAX_LINE_BYTES, [13]], [MAX_LINE_BYTES + 1, []]] as const) {
    Deno.writeTextFileSync(path, sized(bytes) + "\n");
    for (const filter of [undefined, { types: ["poll.*"] }]) {
      const r = await queryEvents({ path, limit: 1, filter });
      assert.deepEqual(r.records.map((x) => x.seq), seqs, `${bytes} bytes`);
    }
  }
});
