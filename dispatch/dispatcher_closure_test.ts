import assert from "node:assert/strict";
import { closeEvent, comment, setup } from "./_test_utils.ts";

const START = "the-loop:start-execution";
const REF = "github:octo/repo#1";

Deno.test("an issue closing closes its session, disarms it, and never prompts or spawns", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const out = await t.dispatcher.dispatch(closeEvent(1));
  assert.deepEqual(out, { status: "delivered", detail: "closed" });
  assert.equal(await t.sessions.live(REF), undefined);
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`, `close ${REF}`]);
  const [closed] = t.events.ofType("session.autoclosed");
  assert.deepEqual([closed.reason, closed.previous_status], ["issue-closed", "active"]);
  assert.equal(t.events.ofType("session.retained")[0].tmux_target, "loop-github-octo-repo-1");
  assert.equal(await t.controlStore.get(REF), undefined);
  assert.match(
    t.github.comments[1].body,
    /closed the claude session for github:octo\/repo#1: the issue was closed/,
  );
  const complete = t.hooks.seen.find((s) => s.point === "work_item_complete")!.ctx;
  assert.deepEqual([complete.state, complete.kind, complete.reason, complete.source], [
    "closed",
    "issue",
    "issue-closed",
    "webhook",
  ]);
  // a reopened item starts afresh: asked work_item_start again
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal(t.hooks.points().filter((p) => p === "work_item_start").length, 2);
});

Deno.test("closing the work item also closes a paused session", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, "the-loop:pause-execution"));
  await t.dispatcher.dispatch(closeEvent(1));
  assert.equal(await t.sessions.live(REF), undefined);
  assert.equal(t.events.ofType("session.autoclosed")[0].previous_status, "paused");
});

Deno.test("a PR closing keeps a linked issue's session open", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const out = await t.dispatcher.dispatch(
    closeEvent(1, { pr: true, merged: true, own: false, linkedFrom: "github:octo/repo#9" }),
  );
  assert.deepEqual(out, { status: "delivered", detail: "kept-open" });
  assert.equal((await t.sessions.live(REF))?.status, "active");
  const [kept] = t.events.ofType("session.kept_open");
  assert.deepEqual([kept.reason, kept.closed], ["pr-merged", "github:octo/repo#9"]);
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`]);
});

Deno.test("a PR closing closes the PR's own session; a close with no session never spawns", async () => {
  await using t = await setup({ routing: (r) => (r.control.requireStartCommand = false) });
  assert.deepEqual(await t.dispatcher.dispatch(closeEvent(5, { pr: true })), {
    status: "delivered",
    detail: "no-session",
  });
  assert.equal(t.runner.calls.length, 0);
  await t.dispatcher.dispatch(comment(5, "work on it"));
  await t.dispatcher.dispatch(closeEvent(5, { pr: true }));
  assert.equal(t.events.ofType("session.autoclosed")[0].reason, "pr-closed");
});

Deno.test("work_item_complete's announce: false skips the closure comment", async () => {
  await using t = await setup({ runner: "process" });
  t.hooks.answers.work_item_complete = (ctx) => (ctx.announce = false);
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(closeEvent(1));
  assert.equal(t.github.comments.length, 1); // the announcement only
  assert.equal(t.events.ofType("session.autoclosed").length, 1);
  assert.equal(t.events.ofType("session.retained").length, 0, "nothing kept by the process runner");
});
