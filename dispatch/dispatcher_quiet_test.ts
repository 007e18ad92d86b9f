/**
 * Quiet actions through the real dispatcher, into a live session: what `routing.deliver` leaves
 * out is settled `quiet-action` with a `dispatch.dropped` and no runner call; the steps that are
 * never filtered (a control keyword, a close) still act; a CI failure is remembered on the
 * session's record and the first success after it is delivered as a recovery, the next one not.
 */
import assert from "node:assert/strict";
import { ciEvent, closeEvent, comment, itemEvent, setup } from "./_test_utils.ts";
import type { RoutedEvent } from "./types.ts";

const REF = "github:octo/repo#1";
const START = "the-loop:start-execution";

async function live() {
  const t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`]);
  return t;
}

const ci = (conclusion: string | undefined, name = "test"): RoutedEvent => ({
  ...ciEvent(1),
  ci: { name, conclusion },
});

Deno.test("quiet actions settle quiet-action with no turn; listed ones are delivered", async () => {
  await using t = await live();
  const quiet = [
    itemEvent(1, { action: "assigned" }),
    itemEvent(1, { action: "milestoned" }),
    { ...itemEvent(1, { action: "labeled" }), label: "bug" },
    itemEvent(1, { action: "edited" }), // no `changes`: nothing the agent reads changed
    comment(1, "same words", { action: "edited" }),
    { ...comment(1, "same words", { action: "edited" }), changed: { body: "same words" } },
    {
      ...comment(1, "lgtm"),
      kind: "review" as const,
      ghEvent: "pull_request_review",
      action: "dismissed",
    },
  ];
  for (const event of quiet) {
    assert.deepEqual(await t.dispatcher.dispatch(event), {
      status: "settled",
      reason: "quiet-action",
    }, `${event.ghEvent} ${event.action}`);
  }
  assert.equal(t.runner.calls.length, 1, "only the spawn");
  const dropped = t.events.ofType("dispatch.dropped");
  assert.deepEqual(dropped.map((d) => d.reason), quiet.map(() => "quiet-action"));
  assert.equal(t.github.reactions.length, 2, "a quiet action gets no reaction (the start's two)");
  const delivered = [
    itemEvent(1, { action: "opened" }),
    itemEvent(1, { action: "labeled" }), // the auto-execute label
    { ...itemEvent(1, { action: "edited" }), changed: { title: "before" } },
    comment(1, "a new comment"),
    { ...comment(1, "after", { action: "edited" }), changed: { body: "before" } },
  ];
  for (const event of delivered) {
    assert.equal((await t.dispatcher.dispatch(event)).status, "delivered", event.action);
  }
  assert.equal(t.runner.calls.length, 1 + delivered.length);
});

Deno.test("a keyword in a quiet edit still acts; a close is never quiet", async () => {
  await using t = await live();
  // an edit that changed nothing, carrying a control keyword: the command runs
  const pause = comment(1, "the-loop:pause-execution", { action: "edited" });
  assert.deepEqual(await t.dispatcher.dispatch(pause), { status: "settled", reason: "command" });
  assert.equal((await t.sessions.live(REF))?.status, "paused");
  assert.equal((await t.dispatcher.dispatch(closeEvent(1))).status, "delivered");
  assert.equal(await t.sessions.live(REF), undefined, "closed");
});

Deno.test("CI: a failure is delivered and remembered; the first success after it recovers", async () => {
  await using t = await live();
  const outcome = async (e: RoutedEvent) => {
    const o = await t.dispatcher.dispatch(e);
    return o.status === "settled" ? o.reason : o.status;
  };
  assert.equal(await outcome(ci("success")), "quiet-action", "a success with nothing failing");
  assert.equal(await outcome(ci(undefined)), "quiet-action", "pending");
  assert.equal(await outcome(ci("failure")), "delivered");
  assert.deepEqual((await t.sessions.live(REF))?.ciFailing, ["test"]);
  assert.equal(await outcome(ci("timed_out", "lint")), "delivered");
  assert.deepEqual((await t.sessions.live(REF))?.ciFailing, ["test", "lint"]);
  assert.equal(await outcome(ci("success")), "delivered", "test recovered");
  assert.deepEqual((await t.sessions.live(REF))?.ciFailing, ["lint"]);
  assert.equal(await outcome(ci("success")), "quiet-action", "test passing again");
  assert.equal(await outcome(ci("success", "lint")), "delivered", "lint recovered");
  assert.equal((await t.sessions.live(REF))?.ciFailing, undefined, "none failing: no field");
  assert.equal(t.runner.calls.length, 1 + 4);
});

Deno.test("CI while paused is dropped, and its result is still remembered", async () => {
  await using t = await live();
  await t.dispatcher.dispatch(comment(1, "the-loop:pause-execution"));
  const o = await t.dispatcher.dispatch(ci("failure"));
  assert.deepEqual(o, { status: "settled", reason: "session-paused" });
  assert.deepEqual((await t.sessions.live(REF))?.ciFailing, ["test"]);
});

Deno.test("routing.deliver as configured: more listed, more delivered", async () => {
  await using t = await setup({
    routing: (r) => {
      r.deliver.issues.push("assigned");
      r.deliver.ci.push("succeeded");
    },
  });
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal(
    (await t.dispatcher.dispatch(itemEvent(1, { action: "assigned" }))).status,
    "delivered",
  );
  assert.equal((await t.dispatcher.dispatch(ci("success"))).status, "delivered");
});
