/**
 * Who acted: an edit, a deletion or a dismissal of a comment or review is
 * the sender's act. The sender must be authorized, and so must the author of the words it
 * carries; a drop names both. Payloads are shaped as GitHub's `edited` / `dismissed` deliveries
 * (`changes.body.from`, `sender` the editor).
 */
import assert from "node:assert/strict";
import {
  ingress,
  issueCommentPayload,
  reviewCommentPayload,
  reviewPayload,
  testRouter,
  user,
} from "./_test_utils.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** `payload` as GitHub sends it when `editor` did `action` to it. */
function actedOn(payload: Json, action: string, editor: string): Json {
  payload.action = action;
  payload.sender = user(editor);
  if (action === "edited") payload.changes = { body: { from: "the text before" } };
  return payload;
}

const TEXT_EVENTS: [string, (o: { login: string; text: string }) => Json, string[]][] = [
  ["issue_comment", issueCommentPayload, ["edited", "deleted"]],
  ["pull_request_review_comment", reviewCommentPayload, ["edited", "deleted"]],
  ["pull_request_review", reviewPayload, ["edited", "dismissed"]],
];

for (const [ghEvent, make, actions] of TEXT_EVENTS) {
  for (const action of actions) {
    Deno.test(`${ghEvent} ${action} by a stranger on alice's words is dropped, naming both`, async () => {
      const { router, dispatcher, sink } = testRouter();
      const payload = actedOn(
        make({ login: "alice", text: "the-loop:start-execution" }),
        action,
        "mallory",
      );
      const result = await router.route(ingress(ghEvent, payload));
      assert.deepEqual(result, {
        status: "dropped",
        reason: "unauthorized-actor",
        actor: "mallory",
      });
      assert.equal(dispatcher.events.length, 0);
      const [drop] = sink.ofType("routing.dropped");
      assert.equal(drop.level, "warning");
      assert.equal(drop.actor, "mallory");
      assert.equal(drop.author, "alice");
    });
  }
}

Deno.test("an edit by an authorized editor of alice's comment is recorded as the editor", async () => {
  const { router, dispatcher, sink } = testRouter();
  const payload = actedOn(
    issueCommentPayload({ login: "alice", text: "please look" }),
    "edited",
    "Bob",
  );
  await router.route(ingress("issue_comment", payload));
  assert.equal(dispatcher.events.length, 1);
  const [ev] = dispatcher.events;
  assert.equal(ev.actor, "Bob", "the session is recorded as the one who acted");
  assert.equal(ev.author, "alice", "whose words they are");
  const [routed] = sink.ofType("routing.routed");
  assert.equal(routed.actor, "Bob");
  assert.equal(routed.author, "alice");
});

Deno.test("an author's edit of their own comment is theirs alone: no author beside the actor", async () => {
  const { router, dispatcher, sink } = testRouter();
  const payload = actedOn(issueCommentPayload({ login: "alice" }), "edited", "alice");
  await router.route(ingress("issue_comment", payload));
  const [ev] = dispatcher.events;
  assert.equal(ev.actor, "alice");
  assert.equal(ev.author, undefined);
  assert.equal(sink.ofType("routing.routed")[0].author, null);
});

Deno.test("an authorized editor does not make a stranger's words authorized", async () => {
  const { router, dispatcher, sink } = testRouter();
  const payload = actedOn(
    issueCommentPayload({ login: "mallory", text: "the-loop:start-execution" }),
    "edited",
    "alice",
  );
  const result = await router.route(ingress("issue_comment", payload));
  assert.equal(result.status, "dropped");
  assert.equal(dispatcher.events.length, 0);
  const [drop] = sink.ofType("routing.dropped");
  assert.equal(drop.reason, "unauthorized-actor");
  assert.equal(drop.actor, "alice");
  assert.equal(drop.author, "mallory");
});

Deno.test("an edit with no sender is unauthorized (fail closed)", async () => {
  const { router, dispatcher, sink } = testRouter();
  const payload = actedOn(issueCommentPayload({ login: "alice" }), "edited", "x");
  delete payload.sender;
  await router.route(ingress("issue_comment", payload));
  assert.equal(dispatcher.events.length, 0);
  const [drop] = sink.ofType("routing.dropped");
  assert.equal(drop.actor, null);
  assert.equal(drop.author, "alice");
});

Deno.test("a comment as written is its author's, whoever GitHub names as sender", async () => {
  const { router, dispatcher } = testRouter();
  const payload = issueCommentPayload({ login: "alice" });
  payload.sender = user("mallory");
  await router.route(ingress("issue_comment", payload));
  assert.equal(dispatcher.events[0]?.actor, "alice");
  assert.equal(dispatcher.events[0]?.author, undefined);
});
