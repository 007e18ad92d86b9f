import assert from "node:assert/strict";
import { closeEvent, comment, type Setup, setup, until } from "./_test_utils.ts";
import type { VerbResult } from "./types.ts";

const START = "the-loop:start-execution";
const REF = "github:octo/repo#1";

/** The agent's `the-loop advance` for #1. */
function advance(t: Setup, outcome: string, node?: string): Promise<VerbResult> {
  return t.dispatcher.act({ verb: "advance", ref: REF, outcome, ...(node ? { node } : {}) }, {
    via: "poll",
  });
}

/** The prompts delivered into #1's session (after its spawn), in order. */
function delivered(t: Setup): string[] {
  return t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
}

/** The phase_changed and waiting_for_input contexts the hooks were asked, in order. */
function loopFacts(t: Setup): Record<string, unknown>[] {
  return t.hooks.seen.filter((s) => s.point === "phase_changed" || s.point === "waiting_for_input")
    .map((s) => {
      const { work_item: _w, ...rest } = s.ctx;
      return { point: s.point, ...rest };
    });
}

Deno.test("a spawn enters adhoc at work: the position first, phase_changed, the label; the assignment in the spawn prompt", async () => {
  await using t = await setup({ loops: true });
  const out = await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(out, { status: "delivered", detail: "spawned" });
  const spawn = t.runner.calls[0];
  assert.match(spawn.prompt!, /walks the loop `adhoc` and stands at node `work` \(phase `work`\)/);
  assert.match(spawn.prompt!, /^- `the-loop advance --outcome done`$/m);
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.loop, pos.node, pos.status], ["adhoc", "work", "active"]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:work"]);
  const enteredAt = t.trail.indexOf("put work");
  assert.ok(enteredAt >= 0);
  assert.deepEqual(t.trail.slice(enteredAt), ["put work", "hook:phase_changed", "+loop:work"]);
  const [entered] = t.events.ofType("loop.entered");
  assert.deepEqual([entered.loop, entered.node, entered.notified], ["adhoc", "work", true]);
});

Deno.test("adhoc walked to done: claim, gate comment, request-changes back to work, approve", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  const claimed = await advance(t, "done");
  assert.equal(claimed.exit, 0, claimed.message);
  assert.deepEqual(claimed.data, { node: "review", phase: "review", status: "active" });
  const request = t.github.comments.at(-1)!.body;
  assert.match(
    request,
    /waiting for a review at review: comment `the-loop:approve` or `the-loop:request-changes`/,
  );
  assert.deepEqual(t.github.labelsOf(1), ["loop:review"]);
  // a comment without a verdict is delivered, the gate waits
  assert.equal((await t.dispatcher.dispatch(comment(1, "looks nice so far"))).status, "delivered");
  assert.equal(t.positions.map.get(REF)!.node, "review");
  // request-changes: consumed, back to work, the assignment delivered with the verdict first
  const verdict = await t.dispatcher.dispatch(comment(1, "the-loop:request-changes the docs"));
  assert.deepEqual(verdict, { status: "settled", reason: "verdict" });
  assert.equal(t.positions.map.get(REF)!.node, "work");
  await until(() => delivered(t).some((p) => p.includes("stands at node `work`")), "assignment");
  const assignment = delivered(t).find((p) => p.includes("stands at node `work`"))!;
  assert.match(assignment, /^@alice resolved the review at `review` with the verdict `request-changes`/);
  assert.match(assignment, /UNTRUSTED CONTENT[\s\S]*the-loop:request-changes the docs/);
  assert.match(assignment, /^- `the-loop advance --outcome done`$/m);
  assert.ok(!delivered(t).some((p) => p.includes("Event: issue_comment") && p.includes("request-changes the docs")));
  // done again, approve: completed
  assert.equal((await advance(t, "done")).exit, 0);
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the-loop:approve")), {
    status: "settled",
    reason: "verdict",
  });
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status], ["done", "completed"]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
  assert.equal(t.events.ofType("loop.completed").length, 1);
});
