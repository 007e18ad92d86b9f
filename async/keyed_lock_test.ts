import assert from "node:assert/strict";
import { KeyedLock } from "./keyed_lock.ts";

Deno.test("keyed lock: one key's calls run one after the other, in the order asked", async () => {
  const lock = new KeyedLock();
  const order: string[] = [];
  const first = Promise.withResolvers<void>();
  const a = lock.run("k", async () => {
    order.push("a start");
    await first.promise;
    order.push("a end");
  });
  const b = lock.run("k", () => {
    order.push("b");
    return Promise.resolve();
  });
  await Promise.resolve();
  assert.deepEqual(order, ["a start"]);
  first.resolve();
  await Promise.all([a, b]);
  assert.deepEqual(order, ["a start", "a end", "b"]);
});

Deno.test("keyed lock: different keys run in parallel", async () => {
  const lock = new KeyedLock();
  const held = Promise.withResolvers<void>();
  const a = lock.run("a", () => held.promise);
  assert.equal(await lock.run("b", () => Promise.resolve("b ran")), "b ran");
  held.resolve();
  await a;
});

Deno.test("keyed lock: a call that rejects passes its rejection on and does not hold the key", async () => {
  const lock = new KeyedLock();
  const failing = lock.run("k", () => Promise.reject(new Error("boom")));
  const next = lock.run("k", () => Promise.resolve("next"));
  await assert.rejects(failing, /boom/);
  assert.equal(await next, "next");
});
