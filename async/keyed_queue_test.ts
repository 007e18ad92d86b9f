import assert from "node:assert/strict";
import { KeyedQueue } from "./keyed_queue.ts";

Deno.test("keyed queue: a long queue for one key does not hold back another key", async () => {
  const q = new KeyedQueue(() => 2);
  const a1 = Promise.withResolvers<void>();
  const order: string[] = [];
  const run = (key: string, name: string, wait?: Promise<void>) =>
    q.run(key, async () => {
      order.push(`start ${name}`);
      await wait;
      order.push(`end ${name}`);
    });
  const jobs = [run("a", "a1", a1.promise), run("a", "a2"), run("a", "a3"), run("b", "b1")];
  await jobs[3];
  assert.deepEqual(order, ["start a1", "start b1", "end b1"]);
  a1.resolve();
  await Promise.all(jobs);
  assert.deepEqual(order.slice(3), ["end a1", "start a2", "end a2", "start a3", "end a3"]);
});

Deno.test("keyed queue: a slot freed goes to the oldest waiting job whose key is idle", async () => {
  const q = new KeyedQueue(() => 1);
  const gate = Promise.withResolvers<void>();
  const order: string[] = [];
  const run = (key: string, name: string, wait?: Promise<void>) =>
    q.run(key, async () => {
      order.push(name);
      await wait;
    });
  const jobs = [run("a", "a1", gate.promise), run("b", "b1"), run("a", "a2"), run("c", "c1")];
  gate.resolve();
  await Promise.all(jobs);
  assert.deepEqual(order, ["a1", "b1", "a2", "c1"]);
});

Deno.test("keyed queue: a job's result or rejection is the run's, and the key carries on", async () => {
  const q = new KeyedQueue(() => 1);
  const failing = q.run("a", () => Promise.reject(new Error("boom")));
  const throwing = q.run("a", () => {
    throw new Error("thrown");
  });
  const next = q.run("a", () => Promise.resolve("next"));
  await assert.rejects(failing, /boom/);
  await assert.rejects(throwing, /thrown/);
  assert.equal(await next, "next");
  assert.deepEqual(q.size, { running: 0, waiting: 0 });
});

Deno.test("keyed queue: a job queued first goes ahead of its key's waiting jobs, after the running one and earlier firsts", async () => {
  const q = new KeyedQueue(() => 4);
  const head = Promise.withResolvers<void>();
  const order: string[] = [];
  const run = (name: string, first = false, wait?: Promise<void>) =>
    q.run("a", async () => {
      order.push(name);
      await wait;
    }, { first });
  const jobs = [run("running", false, head.promise), run("waiting-1"), run("waiting-2")];
  jobs.push(run("first-1", true), run("first-2", true));
  head.resolve();
  await Promise.all(jobs);
  assert.deepEqual(order, ["running", "first-1", "first-2", "waiting-1", "waiting-2"]);
  // on an idle key, first is an ordinary job
  await run("alone", true);
  assert.equal(order.at(-1), "alone");
});
