import assert from "node:assert/strict";
import { Slots } from "./slots.ts";

Deno.test("slots: at most the limit held; a slot given back goes to the oldest waiter", async () => {
  const slots = new Slots(() => 2);
  const a = await slots.take();
  await slots.take();
  const order: string[] = [];
  const c = slots.take().then((release) => (order.push("c"), release));
  const d = slots.take().then((release) => (order.push("d"), release));
  assert.equal(slots.held, 2);
  a();
  a(); // a second release gives back nothing more
  (await c)();
  await d;
  assert.deepEqual(order, ["c", "d"]);
  assert.equal(slots.held, 2);
});

Deno.test("slots: the limit is read live (at least 1) each time a slot is asked for", async () => {
  let limit = 0;
  const slots = new Slots(() => limit);
  const first = await slots.take();
  let second: (() => void) | undefined;
  const waiting = slots.take().then((r) => second = r);
  await Promise.resolve();
  assert.equal(second, undefined, "a limit of 0 is 1");
  limit = 2;
  const third = slots.take(); // asking again reads the raised limit: the waiter goes first
  await waiting;
  assert.equal(slots.held, 2);
  first();
  (await third)();
  second!();
  assert.equal(slots.held, 0);
});

Deno.test("slots: run holds a slot while the call runs, and gives it back when it rejects", async () => {
  const slots = new Slots(() => 1);
  await assert.rejects(
    slots.run(() => {
      assert.equal(slots.held, 1);
      return Promise.reject(new Error("boom"));
    }),
    /boom/,
  );
  assert.equal(slots.held, 0);
  assert.equal(await slots.run(() => Promise.resolve("ok")), "ok");
});
