import assert from "node:assert/strict";
import { ciEvent, comment, Deferred, holdingFirstDelivery, setup, until } from "./_test_utils.ts";
import { defaultTemplates, renderPrompt } from "./prompts.ts";
import { BATCH_SEPARATOR, MAX_BATCH_CHARS, REPEAT_LINE } from "./turn/mod.ts";

const START = "the-loop:start-execution";

Deno.test("a session whose batch just ended does not take the delivery slot back from one that waited", async () => {
  await using t = await setup({
    runner: "process",
    routing: (r) => (r.maxConcurrentDispatches = 1),
  });
  for (const n of [1, 2]) await t.dispatcher.dispatch(comment(n, START));
  const gates: Deferred[] = [];
  t.runner.gate = (call) => {
    if (call.op !== "deliver") return;
    const gate = new Deferred();
    gates.push(gate);
    return gate.promise;
  };
  const outs = [t.dispatcher.dispatch(comment(1, "a1"))];
  await until(() => gates.length === 1, "a1 delivering");
  outs.push(t.dispatcher.dispatch(comment(2, "b1"))); // waits for the slot
  outs.push(t.dispatcher.dispatch(comment(1, "a2"))); // gathers behind a1
  await until(() => t.dispatcher.load.waiting === 2, "b1 and a2 waiting");
  gates[0].resolve();
  await until(() => gates.length === 2, "the next delivery");
  gates[1].resolve();
  await until(() => gates.length === 3, "the one after");
  gates[2].resolve();
  await Promise.all(outs);
  const delivered = t.runner.calls.filter((c) => c.op === "deliver").map((c) =>
    /(a1|a2|b1)/.exec(c.prompt!)?.[1]
  );
  assert.deepEqual(delivered, ["a1", "b1", "a2"], "b1 waited first, so it goes first");
});

Deno.test("a batch holds at most MAX_BATCH_CHARS of prompt; the rest go in the next one, in order", async () => {
  // one author's 17 comments in a minute: past the loop guard, which is not what this is about
  await using t = await setup({ routing: (r) => (r.loopGuard.maxPerWindow = 0) });
  const { held, first } = await holdingFirstDelivery(t);
  // each event carries a ~3.5 KB excerpt of its comment: 16 of them in one frame are over the cap
  const bodies = Array.from({ length: 16 }, (_, i) => `long ${i} ${"word ".repeat(700)}`);
  const outs = bodies.map((b) => t.dispatcher.dispatch(comment(1, b)));
  await until(() => t.dispatcher.load.waiting === 16, "16 gathered");
  t.runner.gate = () => {};
  held.resolve();
  await Promise.all([first, ...outs]);
  const batches = t.runner.calls.slice(2).map((c) => c.prompt!);
  assert.ok(batches.length >= 2, `split into ${batches.length}`);
  for (const prompt of batches) {
    assert.ok(prompt.length <= MAX_BATCH_CHARS, `within the cap: ${prompt.length}`);
    assert.ok(!prompt.includes(BATCH_SEPARATOR), "each batch one frame");
  }
  // counted as the frame goes in: 7 whole prompts of ~4.4 Ki would fit, 8 sections do
  assert.equal(batches[0].match(/long \d+/g)!.length, 8, batches[0].slice(0, 100));
  const order = batches.flatMap((p) => [...p.matchAll(/long (\d+)/g)].map((m) => Number(m[1])));
  assert.deepEqual(order, bodies.map((_, i) => i));
});

Deno.test("gathered events go in as one frame: one header, each event's excerpt in order, one closing; one alone as before", async () => {
  await using t = await setup({ runner: "process" });
  const { held, first } = await holdingFirstDelivery(t);
  const events = [comment(1, "burst one"), ciEvent(1), comment(1, "burst two")];
  const outs = events.map((e) => t.dispatcher.dispatch(e));
  await until(() => t.dispatcher.load.waiting === 3, "three gathered");
  t.runner.gate = () => {};
  held.resolve();
  await Promise.all([first, ...outs]);
  const [alone, burst] = t.runner.calls.slice(1).map((c) => c.prompt!);
  // the first went alone: the event template rendered for it, as it always was
  const expected = renderPrompt(defaultTemplates().event, {
    work_item: "github:octo/repo#1",
    event: "issue_comment",
    action: "created",
    repository: "octo/repo",
    delivery_id: /delivery (d-\d+)/.exec(alone)![1],
    payload_excerpt: /UNTRUSTED[\s\S]*END OF UNTRUSTED CONTENT/.exec(alone)![0],
    interaction_directive: /This session runs headless.*/.exec(alone)![0],
    graph_context: "",
  });
  assert.equal(alone, expected);
  assert.match(alone, /^A new event arrived on the work item/);
  const count = (re: RegExp) => burst.match(re)?.length ?? 0;
  assert.match(
    burst,
    /^3 new events arrived on the work item you are working on: github:octo\/repo#1/,
  );
  assert.equal(count(/new events? arrived/g), 1, "one header");
  assert.equal(count(/Carry on with your work/g), 1, "one closing paragraph");
  assert.equal(count(/This session runs headless/g), 1, "the directive once");
  assert.equal(count(/UNTRUSTED CONTENT from GitHub/g), 3, "each event fenced");
  const at = ["Event 1 (delivery", "Event 2 (delivery", "burst one"].map((s) => burst.indexOf(s));
  assert.ok(at[0] >= 0 && at[2] > at[0] && at[1] > at[2], `in arrival order: ${at}`);
  assert.ok(burst.indexOf("burst two") > burst.indexOf("conclusion: failure"));
  assert.ok(burst.indexOf("event: workflow_run (completed)") > at[1]);
  for (const e of events) assert.ok(burst.includes(`(delivery ${e.deliveryId})`));
});

Deno.test("a batch whose events were in flight at a crash: each keeps its repeat line in the frame", async () => {
  await using t = await setup();
  const { held, first } = await holdingFirstDelivery(t);
  await t.sessions.fly("github:octo/repo#1", ["r-1", "r-2"]);
  const outs = ["r-1", "r-2"].map((id) =>
    t.dispatcher.dispatch(comment(1, `again ${id}`, { deliveryId: id }))
  );
  await until(() => t.dispatcher.load.waiting === 2, "two gathered");
  t.runner.gate = () => {};
  held.resolve();
  await Promise.all([first, ...outs]);
  const burst = t.runner.calls.at(-1)!.prompt!;
  assert.match(burst, /^2 new events arrived/);
  for (const k of [1, 2]) assert.ok(burst.includes(`${REPEAT_LINE}\n\nEvent ${k} (`), burst);
  assert.equal(burst.split(REPEAT_LINE).length - 1, 2);
});

Deno.test("harnesses found dead at delivery are relaunched at most maxConcurrentDispatches at once", async () => {
  await using t = await setup({ routing: (r) => (r.maxConcurrentDispatches = 1) });
  for (const n of [1, 2, 3]) await t.dispatcher.dispatch(comment(n, START));
  t.runner.isAlive = false; // every pane died (a tmux server restart)
  const held = new Deferred();
  t.runner.maxRunning = 0;
  t.runner.gate = (call) => call.op === "spawn" ? held.promise : undefined;
  const outs = [1, 2, 3].map((n) => t.dispatcher.dispatch(comment(n, "after the restart")));
  await until(() => t.runner.running === 1, "one relaunch");
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 4, "3 starts and 1 relaunch");
  held.resolve();
  assert.deepEqual((await Promise.all(outs)).map((o) => o.status), [
    "delivered",
    "delivered",
    "delivered",
  ]);
  assert.equal(t.runner.maxRunning, 1);
  assert.equal(t.events.ofType("session.respawned").length, 3);
});

Deno.test("an event whose dispatch was aborted while it gathered is handed back; the rest go in", async () => {
  await using t = await setup();
  const { held, first } = await holdingFirstDelivery(t);
  const abort = new AbortController();
  const dropped = t.dispatcher.dispatch(comment(1, "given up"), { signal: abort.signal });
  const kept = t.dispatcher.dispatch(comment(1, "kept"));
  await until(() => t.dispatcher.load.waiting === 2, "two gathered");
  abort.abort();
  held.resolve();
  assert.deepEqual(await dropped, {
    status: "failed",
    stage: "queue",
    cause: "aborted",
    message: "aborted",
    retry: true,
  });
  assert.equal((await kept).status, "delivered");
  await first;
  const last = t.runner.calls.at(-1)!.prompt!;
  assert.match(last, /kept/);
  assert.doesNotMatch(last, /given up/);
});

Deno.test("a redelivery while its batch's note is written is a duplicate; the outcome waits for the note", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const noted = new Deferred();
  const touch = t.sessions.touch.bind(t.sessions);
  let touching = 0;
  t.sessions.touch = async (ref, ids) => {
    touching++;
    await noted.promise;
    return await touch(ref, ids);
  };
  const event = comment(1, "noted late");
  let settled = false;
  const first = t.dispatcher.dispatch(event).then((o) => (settled = true, o));
  await until(() => touching === 1, "the batch's note under way");
  assert.equal(settled, false, "not settled before its note");
  const again = await t.dispatcher.dispatch(event);
  assert.equal(again.status === "settled" && again.reason, "duplicate-delivery");
  noted.resolve();
  assert.equal((await first).status, "delivered");
  assert.deepEqual(
    (await t.sessions.live(event.workItem.ref))?.recentDeliveries.at(-1),
    event.deliveryId,
  );
  const pasted = t.runner.calls.filter((c) =>
    c.op === "deliver" && c.prompt?.includes("noted late")
  );
  assert.equal(pasted.length, 1, "delivered once");
});
