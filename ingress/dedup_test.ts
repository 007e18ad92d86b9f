import assert from "node:assert/strict";
import { DedupCache } from "./dedup.ts";

Deno.test("remember answers true for a new id and false for a duplicate", () => {
  const seen = new DedupCache(4);
  assert.equal(seen.remember("a"), true);
  assert.equal(seen.remember("a"), false);
  assert.equal(seen.length, 1);
});

Deno.test("the cache is a bounded LRU: the least recently seen id goes first", () => {
  const seen = new DedupCache(2);
  seen.remember("a");
  seen.remember("b");
  seen.remember("a"); // a duplicate refreshes a
  seen.remember("c"); // evicts b, the least recent
  assert.equal(seen.length, 2);
  assert.equal(seen.has("a"), true);
  assert.equal(seen.has("b"), false);
  assert.equal(seen.remember("b"), true);
});

Deno.test("a released id is routed again", () => {
  const seen = new DedupCache();
  assert.equal(seen.size, 1024);
  seen.remember("d3");
  seen.release("d3");
  assert.equal(seen.remember("d3"), true);
  seen.release("never-seen"); // harmless
});

Deno.test("a size below 1 is refused with the value", () => {
  assert.throws(() => new DedupCache(0), /integer ≥ 1 \(got 0\)/);
});

Deno.test("a long id is told apart by all of it, and the cache keeps no more than a hash of it", async () => {
  const long = "x".repeat(16_000);
  const seen = new DedupCache(4);
  assert.equal(seen.remember(`${long}a`), true);
  assert.equal(seen.remember(`${long}b`), true);
  assert.equal(seen.remember(`${long}a`), false);
  assert.equal(seen.has(`${long}b`), true);
  seen.release(`${long}b`);
  assert.equal(seen.remember(`${long}b`), true);
  // the memory: 1,024 distinct 16 KB ids (the most a header holds) in a cache of 1,024, measured
  // after a full GC in a child of its own
  const code = `
    const { DedupCache } = await import(${
    JSON.stringify(new URL("./dedup.ts", import.meta.url).href)
  });
    gc(); const before = Deno.memoryUsage().heapUsed;
    const seen = new DedupCache(1024);
    for (let i = 0; i < 1024; i++) seen.remember(String(i).padStart(16000, "y"));
    gc(); console.log(JSON.stringify({ grown: Deno.memoryUsage().heapUsed - before, n: seen.length }));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--cached-only", "--v8-flags=--expose-gc", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const { grown, n } = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(n, 1024);
  // the ids themselves would be 16 MB; their hashes take about 100 KB
  assert.ok(grown < 2 * 1024 * 1024, `the cache grew the heap by ${grown} bytes`);
});
