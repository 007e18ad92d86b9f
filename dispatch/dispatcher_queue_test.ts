import assert from "node:assert/strict";
import { closeEvent, comment, Deferred, setup, until } from "./_test_utils.ts";
import { BATCH_SEPARATOR } from "./turn/mod.ts";

const START = "the-loop:start-execution";

Deno.test("one item's events go in one at a time, in arrival order; those that gather meanwhile go in together", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const events = ["first", "second", "third"].map((body) => comment(1, body));
  const outs = events.map((e) => t.dispatcher.dispatch(e));
  await until(() => t.runner.calls.length === 2, "the first delivery");
  // the later turns are decided while the first delivery is under way, and wait to go in
  await until(() => t.dispatcher.load.waiting === 2, "two deliveries gathered");
  assert.deepEqual(t.dispatcher.load, { running: 1, waiting: 2 });
  held.resolve();
  assert.deepEqual((await Promise.all(outs)).map((o) => o.status), [
    "delivered",
    "delivered",
    "delivered",
  ]);
  const prompts = t.runner.calls.slice(1).map((c) => c.prompt!);
  assert.equal(prompts.length, 2);
  assert.match(prompts[0], /first/);
  assert.doesNotMatch(prompts[0], /second|third/);
  // one harness call, one frame: the events in arrival order, each its own excerpt
  assert.match(prompts[1], /^2 new events arrived on the work item/);
  assert.ok(!prompts[1].includes(BATCH_SEPARATOR));
  const [second, third] = ["second", "third"].map((b) => prompts[1].indexOf(`\n${b}\n`));
  assert.ok(second > 0 && third > second, prompts[1]);
  assert.equal(prompts[1].match(/UNTRUSTED CONTENT from GitHub/g)?.length, 2);
  assert.equal(t.runner.maxRunning, 1);
  const delivered = t.events.ofType("dispatch.delivered");
  assert.deepEqual(delivered.map((e) => [e.delivery_id, e.batch]), [
    [events[0].deliveryId, 1],
    [events[1].deliveryId, 2],
    [events[2].deliveryId, 2],
  ]);
  // every id noted on the session, in order
  const record = await t.sessions.get(events[0].workItem.ref);
  assert.deepEqual(
    record!.recentDeliveries.slice(-3),
    events.map((e) => e.deliveryId),
  );
});

Deno.test("a command waits for the deliveries before it; what comes after it sees it applied", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const outs = [
    t.dispatcher.dispatch(comment(1, "before one")),
    t.dispatcher.dispatch(comment(1, "before two")),
    t.dispatcher.dispatch(comment(1, "the-loop:pause-execution")),
    t.dispatcher.dispatch(comment(1, "after the pause")),
  ];
  await until(() => t.runner.calls.length === 2, "the first delivery");
  const ref = t.runner.calls[0].ref;
  assert.equal((await t.sessions.get(ref))!.status, "active");
  held.resolve();
  const results = await Promise.all(outs);
  assert.deepEqual(results.map((r) => r.status), ["delivered", "delivered", "settled", "settled"]);
  const prompts = t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
  assert.deepEqual(prompts.map((p) => /before (one|two)/.exec(p)?.[1]), ["one", "two"]);
  assert.equal((await t.sessions.get(ref))!.status, "paused");
  assert.equal(t.events.ofType("dispatch.dropped")[0].reason, "session-paused");
});

Deno.test("a close waits for the deliveries before it: the harness hears them, then ends", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const outs = [
    t.dispatcher.dispatch(comment(1, "last words")),
    t.dispatcher.dispatch(comment(1, "and more")),
    t.dispatcher.dispatch(closeEvent(1)),
  ];
  await until(() => t.runner.calls.length === 2, "the first delivery");
  assert.ok(!t.runner.ops().some((op) => op.startsWith("close")), "the close waits");
  held.resolve();
  await Promise.all(outs);
  assert.deepEqual(t.runner.ops().map((op) => op.split(" ")[0]), [
    "spawn",
    "deliver",
    "deliver",
    "close",
  ]);
});

Deno.test("a redelivery of an event still waiting to go in is a duplicate", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const waiting = comment(1, "second");
  const outs = [
    t.dispatcher.dispatch(comment(1, "first")),
    t.dispatcher.dispatch(waiting),
    t.dispatcher.dispatch({ ...waiting }),
  ];
  await until(
    () => t.dispatcher.load.running === 1 && t.dispatcher.load.waiting === 1,
    "one gathered",
  );
  held.resolve();
  const results = await Promise.all(outs);
  assert.deepEqual(results.map((r) => r.status), ["delivered", "delivered", "settled"]);
  assert.equal(results[2].status === "settled" && results[2].reason, "duplicate-delivery");
  const prompts = t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
  assert.equal(prompts.join("").match(/second/g)?.length, 1);
});

Deno.test("a batch that finds the harness gone relaunches it on its first prompt and pastes the rest", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const outs = ["one", "two", "three"].map((b) => t.dispatcher.dispatch(comment(1, `word ${b}`)));
  await until(() => t.runner.calls.length === 2, "the first delivery");
  await until(() => t.dispatcher.load.waiting === 2, "two gathered");
  t.runner.isAlive = false; // the harness dies while the first delivery is under way
  t.runner.gate = (call) => {
    if (call.op === "spawn") t.runner.isAlive = true;
  };
  held.resolve();
  assert.deepEqual((await Promise.all(outs)).map((o) => o.status), [
    "delivered",
    "delivered",
    "delivered",
  ]);
  const after = t.runner.calls.slice(2).map((c) => `${c.op} ${/word (\w+)/.exec(c.prompt!)?.[1]}`);
  assert.deepEqual(after, ["spawn two", "deliver three"]);
  const delivered = t.events.ofType("dispatch.delivered");
  assert.deepEqual(delivered.map((e) => [e.respawned, e.batch]), [[false, 1], [true, 1], [
    false,
    1,
  ]]);
});

for (const runner of ["process", "tmux"] as const) {
  // a headless delivery is a harness run: bounded; a paste into a running pane is not
  const most = runner === "process" ? 2 : 3;
  Deno.test(`deliveries into different sessions go in parallel, ${runner}: ${most} at once with maxConcurrentDispatches 2`, async () => {
    await using t = await setup({ runner, routing: (r) => (r.maxConcurrentDispatches = 2) });
    for (const n of [1, 2, 3]) await t.dispatcher.dispatch(comment(n, START));
    const held = new Deferred();
    t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
    const outs = [1, 2, 3].map((n) => t.dispatcher.dispatch(comment(n, "hello")));
    await until(() => t.runner.running === most, `${most} deliveries at once`);
    assert.deepEqual(t.dispatcher.load, { running: most, waiting: 3 - most });
    held.resolve();
    assert.deepEqual((await Promise.all(outs)).map((o) => o.status), [
      "delivered",
      "delivered",
      "delivered",
    ]);
    assert.equal(t.runner.maxRunning, most);
  });
}

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
  assert.ok(out.status === "failed" && out.cause === "timeout" && out.stage === "spawn");
  assert.match(out.status === "failed" ? out.message : "", /dispatchTimeoutSeconds/);
  assert.ok(aborted instanceof Error);
  assert.deepEqual(t.github.contents(), ["eyes", "confused"]);
  assert.equal(t.events.ofType("dispatch.failed")[0].stage, "spawn");
});

Deno.test("a harness call cut short by the dispatch's own signal fails as aborted, for a retry", async () => {
  await using t = await setup();
  const stop = new AbortController();
  t.runner.gate = (_call, signal) =>
    new Promise<void>((resolve) => {
      signal?.addEventListener("abort", () => resolve());
      stop.abort(new Error("the daemon is stopping")); // a stop while the harness boots
    });
  const out = await t.dispatcher.dispatch(comment(1, START), { signal: stop.signal });
  assert.deepEqual(out.status === "failed" && [out.stage, out.cause, out.message, out.retry], [
    "spawn",
    "aborted",
    "the daemon is stopping",
    true,
  ]);
});
