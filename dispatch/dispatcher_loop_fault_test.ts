import assert from "node:assert/strict";
import { comment, type Setup, setup, until } from "./_test_utils.ts";
import type { VerbResult } from "./types.ts";

const START = "the-loop:start-execution";
const REF = "github:octo/repo#1";

function advance(t: Setup, outcome: string): Promise<VerbResult> {
  return t.dispatcher.act({ verb: "advance", ref: REF, outcome }, { via: "poll" });
}

Deno.test("a loop fault never costs a delivery: unreadable positions still spawn, deliver and take comments", async () => {
  await using t = await setup({ loops: true });
  t.positions.failGet = true;
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
    status: "delivered",
    detail: "spawned",
  });
  assert.doesNotMatch(t.runner.calls[0].prompt!, /walks the loop/);
  assert.equal(t.positions.puts, 0);
  assert.ok(t.events.ofType("loop.fault").every((e) => e.step === "read"));
  assert.ok(t.events.ofType("loop.fault").length > 0);
  // a gate keyword cannot be judged: it is delivered like any comment
  const out = await t.dispatcher.dispatch(comment(1, "the-loop:approve"));
  assert.deepEqual(out, { status: "delivered", detail: "delivered" });
  assert.match(t.runner.calls.at(-1)!.prompt!, /the-loop:approve/);
  const claim = await advance(t, "done");
  assert.equal(claim.exit, 1);
  assert.match(claim.message, /cannot be read/);
});

Deno.test("a position that cannot be written moves nothing and does nothing else; the spawn stands", async () => {
  await using t = await setup({ loops: true });
  t.positions.failPut = true;
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(t.github.labelsOf(1).length, 0);
  assert.ok(!t.hooks.points().includes("phase_changed"));
  assert.deepEqual(t.events.ofType("loop.fault").map((e) => e.step), ["write"]);
  assert.equal(t.events.ofType("loop.entered").length, 0);
  // writable again: the next spawn enters (nothing was recorded)
  t.positions.failPut = false;
  await t.sessions.close(REF);
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal(t.positions.map.get(REF)?.node, "work");
  // a claim whose write fails answers exit 1 and changes nothing
  t.positions.failPut = true;
  const claim = await advance(t, "done");
  assert.equal(claim.exit, 1);
  assert.match(claim.message, /could not be recorded/);
  assert.equal(t.positions.map.get(REF)?.node, "work");
  assert.ok(!t.github.comments.some((c) => c.body.includes("waiting for a review")));
});

Deno.test("a label that cannot be changed is loop.label_failed; the move stands", async () => {
  await using t = await setup({ loops: true });
  t.github.failLabels = true;
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(t.positions.map.get(REF)?.node, "work");
  const [failed] = t.events.ofType("loop.label_failed");
  assert.deepEqual([failed.label, failed.op], ["loop:work", "add"]);
  assert.equal((await advance(t, "done")).exit, 0);
  assert.equal(t.positions.map.get(REF)?.node, "review");
});

Deno.test("an unknown routing.loop: loop.unknown, the session runs, nothing entered", async () => {
  await using t = await setup({ loops: true, routing: (r) => Object.assign(r, { loop: "nope" }) });
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(t.positions.map.size, 0);
  const [unknown] = t.events.ofType("loop.unknown");
  assert.equal(unknown.loop, "nope");
  assert.deepEqual(unknown.known, ["adhoc", "pdlc"]);
});

Deno.test("loop=pdlc after the start keyword picks the item's loop, kept in its control record", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, `${START} loop=pdlc`));
  assert.equal((await t.controlStore.get(REF))?.loop, "pdlc");
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.loop, pos.node], ["pdlc", "requirements"]);
  assert.match(
    t.runner.calls[0].prompt!,
    /walks the loop `pdlc` and stands at node `requirements`/,
  );
});

Deno.test("loop=NAME of a loop nobody declared: control.rejected unknown-loop, nothing recorded or spawned", async () => {
  await using t = await setup({ loops: true });
  const out = await t.dispatcher.dispatch(comment(1, `${START} loop=pdcl`));
  assert.deepEqual(out, { status: "settled", reason: "command-rejected" });
  assert.equal(t.runner.calls.length, 0);
  assert.equal(await t.controlStore.get(REF), undefined);
  const [rejected] = t.events.ofType("control.rejected");
  assert.equal(rejected.reason, "unknown-loop");
  assert.match(String(rejected.detail), /pdcl \(known: adhoc, pdlc\)/);
});

Deno.test("without a positions port no loop runs: no position, no label, an empty $graph_context", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  assert.doesNotMatch(t.runner.calls[0].prompt!, /walks the loop/);
  assert.equal(t.github.labels.size, 0);
  const claim = await advance(t, "done");
  assert.equal(claim.exit, 1);
  assert.equal((await t.dispatcher.dispatch(comment(1, "the-loop:approve"))).status, "delivered");
  await until(() => t.runner.calls.length === 2, "the delivery");
});

Deno.test("a comment nobody's input_received hook reads costs no read of the position for its loop fact", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await until(() => t.positions.map.get(REF)?.node === "work", "the item entered adhoc");
  t.hooks.unhandled.add("input_received");
  const before = t.positions.gets;
  const out = await t.dispatcher.dispatch(comment(1, "an ordinary comment"));
  assert.deepEqual(out, { status: "delivered", detail: "delivered" });
  assert.equal(t.positions.gets, before, "no read for a fact no hook sees");
  const seen = t.hooks.seen.filter((s) => s.point === "input_received").at(-1)!;
  assert.equal(seen.ctx.loop, "");
  // a hook that handles it is told the item's loop
  t.hooks.unhandled.delete("input_received");
  await t.dispatcher.dispatch(comment(1, "another comment"));
  assert.equal(t.hooks.seen.filter((s) => s.point === "input_received").at(-1)!.ctx.loop, "adhoc");
});
