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
