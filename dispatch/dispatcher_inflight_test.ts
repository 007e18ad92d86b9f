import assert from "node:assert/strict";
import { comment, setup, types } from "./_test_utils.ts";
import { REPEAT_LINE } from "./turn/mod.ts";

const START = "the-loop:start-execution";

Deno.test("a delivery is marked in flight on its session before its paste, and settled after", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  let during: string[] | undefined;
  t.runner.gate = async (call) => {
    if (call.op !== "deliver") return;
    during = (await t.sessions.get("github:octo/repo#1"))?.inFlight;
  };
  await t.dispatcher.dispatch(comment(1, "hello", { deliveryId: "c-1" }));
  assert.deepEqual(during, ["c-1"], "in flight while it was pasted");
  const after = await t.sessions.get("github:octo/repo#1");
  assert.deepEqual(after?.inFlight ?? [], [], "settled after");
  assert.ok(after?.recentDeliveries.includes("c-1"));
});

Deno.test("a redelivery of an id in flight at a crash is delivered again, its prompt flagged; a settled one is a duplicate", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  // a crash between the paste and its note: marked in flight, never noted delivered
  await t.sessions.fly("github:octo/repo#1", ["c-1"]);
  const again = await t.dispatcher.dispatch(comment(1, "hello", { deliveryId: "c-1" }));
  assert.equal(again.status, "delivered");
  const pasted = t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
  assert.equal(pasted.length, 1);
  assert.ok(pasted[0].startsWith(REPEAT_LINE), pasted[0].slice(0, 120));
  assert.match(pasted[0], /this may repeat a message delivered just before a restart/);
  assert.ok(types(t.events).includes("dispatch.repeat"));
  // now settled: a further redelivery is a duplicate
  const third = await t.dispatcher.dispatch(comment(1, "hello", { deliveryId: "c-1" }));
  assert.deepEqual(third, { status: "settled", reason: "duplicate-delivery" });
  // a new id is not flagged
  await t.dispatcher.dispatch(comment(1, "fresh", { deliveryId: "c-2" }));
  const last = t.runner.calls.filter((c) => c.op === "deliver").at(-1)!.prompt!;
  assert.ok(!last.includes(REPEAT_LINE));
});

Deno.test("a batch marked in flight takes the one before it, pasted and its note still behind, as delivered", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const ref = "github:octo/repo#1";
  await t.sessions.fly(ref, ["a1", "a2"]);
  // a1 and a2 went in; their note is behind the next batch, which is marked in the same line
  await t.sessions.fly(ref, ["b1"], { landed: ["a1", "a2"] });
  const record = await t.sessions.get(ref);
  assert.deepEqual(record?.inFlight, ["b1"], "only the last batch is in flight");
  assert.deepEqual(record?.recentDeliveries.slice(-2), ["a1", "a2"]);
  assert.equal((await t.sessions.lookup(ref, "a1")).duplicate, true);
  assert.equal((await t.sessions.lookup(ref, "b1")).inFlight, true);
});
