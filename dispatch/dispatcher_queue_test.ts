import assert from "node:assert/strict";
import { comment, Deferred, setup, until } from "./_test_utils.ts";
import { KeyedQueue } from "./_queue.ts";

const START = "the-loop:start-execution";

Deno.test("one item's events run one at a time, in arrival order", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const outs = ["first", "second", "third"].map((body) => t.dispatcher.dispatch(comment(1, body)));
  await until(() => t.runner.calls.length === 2, "the first delivery");
  assert.deepEqual(t.dispatcher.load, { running: 1, waiting: 2 });
  assert.equal(t.runner.maxRunning, 1);
  held.resolve();
  await Promise.all(outs);
  const bodies = t.runner.calls.slice(1).map((c) => /(first|second|third)/.exec(c.prompt!)?.[1]);
  assert.deepEqual(bodies, ["first", "second", "third"]);
  assert.equal(t.runner.maxRunning, 1);
});

Deno.test("different items run in parallel up to maxConcurrentDispatches", async () => {
  await using t = await setup({ routing: (r) => (r.maxConcurrentDispatches = 2) });
  const held = new Deferred();
  t.runner.gate = () => held.promise;
  const outs = [1, 2, 3].map((n) => t.dispatcher.dispatch(comment(n, START)));
  await until(() => t.runner.running === 2, "two spawns at once");
  assert.deepEqual(t.dispatcher.load, { running: 2, waiting: 1 });
  held.resolve();
  const results = await Promise.all(outs);
  assert.deepEqual(results.map((r) => r.status), ["delivered", "delivered", "delivered"]);
  assert.equal(t.runner.maxRunning, 2);
});

Deno.test("a long queue for one item does not hold back another item", async () => {
  const q = new KeyedQueue(() => 2);
  const a1 = new Deferred();
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

Deno.test("a slot freed goes to the oldest waiting event whose item is idle", async () => {
  const q = new KeyedQueue(() => 1);
  const gate = new Deferred();
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

Deno.test("a harness call past dispatchTimeoutSeconds fails for a retry, and its signal is aborted", async () => {
  await using t = await setup({ routing: (r) => (r.dispatchTimeoutSeconds = 0.05) });
  let aborted: unknown;
  t.runner.gate = (_call, signal) =>
    new Promise<void>((resolve) => {
      signal?.addEventListener("abort", () => {
        aborted = signal.reason;
        resolve();
      });
    });
  const out = await t.dispatcher.dispatch(comment(1, START));
  assert.equal(out.status, "failed");
  assert.ok(out.status === "failed" && out.retry);
  assert.match(out.status === "failed" ? out.reason : "", /dispatchTimeoutSeconds/);
  assert.ok(aborted instanceof Error);
  assert.deepEqual(t.github.contents(), ["eyes", "confused"]);
  assert.equal(t.events.ofType("dispatch.failed")[0].stage, "spawn");
});
