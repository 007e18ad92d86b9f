import assert from "node:assert/strict";
import { GitHubError, markSelfAuthored } from "../github/mod.ts";
import {
  checkRunPayload,
  ingress,
  issueCommentPayload,
  issuesPayload,
  LABEL,
  pullRequestPayload,
  reviewCommentPayload,
  reviewPayload,
  testRouter,
  workflowRunPayload,
} from "./_test_utils.ts";

const I15 = "github:octo/repo#15";
const PR42 = "github:octo/repo#42";

Deno.test("an issue comment by an allowed login is routed as one comment value", async () => {
  const { router, dispatcher, sink } = testRouter();
  const payload = issueCommentPayload({ number: 15, text: "please look", login: "alice" });
  const result = await router.route(ingress("issue_comment", payload, { deliveryId: "d1" }));
  assert.equal(result.status, "routed");
  assert.equal(dispatcher.events.length, 1);
  const ev = dispatcher.events[0];
  assert.equal(ev.workItem.ref, I15);
  assert.equal(ev.kind, "comment");
  assert.equal(ev.actor, "alice");
  assert.equal(ev.text, "please look");
  assert.equal(ev.deliveryId, "d1");
  assert.equal(ev.via, "gh-webhook");
  assert.equal(ev.repository, "octo/repo");
  assert.deepEqual(ev.item, {
    kind: "issue",
    url: payload.issue.html_url,
    title: "item 15",
    state: "open",
  });
  assert.deepEqual(ev.subject, {
    kind: "issue_comment",
    id: payload.comment.id,
    nodeId: payload.comment.node_id,
    url: payload.comment.html_url,
    number: 15,
  });
  const [routed] = sink.ofType("routing.routed");
  assert.deepEqual(
    { ...routed, ts: undefined, pid: undefined },
    {
      ts: undefined,
      pid: undefined,
      source: "gh-webhook",
      event: "routing.routed",
      level: "info",
      work_item: I15,
      kind: "comment",
      gh_event: "issue_comment",
      action: "created",
      delivery_id: "d1",
      actor: "alice",
      author: null,
      labeled: false,
      outcome: "delivered",
      reason: null,
      will_retry: false,
      linked_from: null,
    },
  );
});

Deno.test("routing.routed is written after the dispatcher answered, with its outcome", async () => {
  const { router, dispatcher, sink } = testRouter();
  let seenBeforeAnswer = -1;
  dispatcher.answer = () => {
    seenBeforeAnswer = sink.ofType("routing.routed").length;
    return { status: "settled", reason: "awaiting-start" };
  };
  await router.route(ingress("issue_comment", issueCommentPayload({})));
  assert.equal(seenBeforeAnswer, 0);
  const [routed] = sink.ofType("routing.routed");
  assert.equal(routed.outcome, "settled");
  assert.equal(routed.reason, "awaiting-start");
});

// the event filter: the default set of routable events, or the configured list
Deno.test("an event outside the filter is dropped as disabled-event at debug level", async () => {
  const { router, dispatcher, sink } = testRouter({ policy: { events: ["issues"] } });
  const result = await router.route(
    ingress("issue_comment", issueCommentPayload({}), { deliveryId: "d-off" }),
  );
  assert.deepEqual(result, { status: "dropped", reason: "disabled-event", actor: "alice" });
  assert.equal(dispatcher.events.length, 0);
  const [drop] = sink.ofType("routing.dropped");
  assert.equal(drop.level, "debug");
  assert.equal(drop.reason, "disabled-event");
  assert.equal(drop.gh_event, "issue_comment");
  assert.equal(drop.delivery_id, "d-off");
  assert.deepEqual(drop.work_items, []);
});

Deno.test("an empty event list means the default set", async () => {
  const { router, dispatcher } = testRouter({ policy: { events: [] } });
  await router.route(ingress("issue_comment", issueCommentPayload({})));
  await router.route(ingress("push", { repository: { full_name: "octo/repo" } }));
  assert.equal(dispatcher.events.length, 1);
});

// one delivery id is dispatched once
Deno.test("the same delivery twice is dispatched once; the second is duplicate-delivery", async () => {
  const { router, dispatcher, sink } = testRouter({ live: [I15] });
  const payload = issueCommentPayload({ number: 15 });
  await router.route(ingress("issue_comment", payload, { deliveryId: "dup" }));
  const again = await router.route(ingress("issue_comment", payload, { deliveryId: "dup" }));
  assert.equal(again.status, "dropped");
  assert.equal(again.status === "dropped" && again.reason, "duplicate-delivery");
  assert.equal(dispatcher.events.length, 1);
  const [drop] = sink.ofType("routing.dropped");
  assert.equal(drop.reason, "duplicate-delivery");
  assert.equal(drop.level, "info");
  assert.equal(drop.delivery_id, "dup");
});

Deno.test("the dedup cache is bounded by dedupCacheSize: the oldest id is forgotten", async () => {
  const { router, dispatcher } = testRouter({ dedupCacheSize: 2 });
  for (const id of ["a", "b", "c", "a"]) {
    await router.route(ingress("issue_comment", issueCommentPayload({}), { deliveryId: id }));
  }
  // "a" was evicted by "c", so its redelivery is routed again
  assert.deepEqual(dispatcher.events.map((e) => e.deliveryId), ["a", "b", "c", "a"]);
  await router.route(ingress("issue_comment", issueCommentPayload({}), { deliveryId: "c" }));
  assert.equal(dispatcher.events.length, 4);
});

// a retryable failure or a spawn-policy drop releases the delivery id for a redelivery
for (
  const [name, outcome, released] of [
    [
      "a retryable failure",
      { status: "failed", stage: "deliver", cause: "error", message: "boom", retry: true },
      true,
    ],
    ["a spawn-policy settle", { status: "settled", reason: "spawn-policy" }, true],
    [
      "a final failure",
      { status: "failed", stage: "spawn", cause: "error", message: "bad", retry: false },
      false,
    ],
    ["an awaiting-start settle", { status: "settled", reason: "awaiting-start" }, false],
    ["a delivery", { status: "delivered" }, false],
  ] as const
) {
  Deno.test(`after ${name}, the delivery id is ${released ? "" : "not "}released`, async () => {
    const { router, dispatcher, sink } = testRouter();
    dispatcher.answer = () => outcome;
    const ev = ingress("issue_comment", issueCommentPayload({}), { deliveryId: "d3" });
    await router.route(ev);
    await router.route(ev);
    assert.equal(dispatcher.events.length, released ? 2 : 1);
    assert.equal(sink.ofType("routing.routed")[0].will_retry, name === "a retryable failure");
  });
}

Deno.test("a dispatcher that throws counts as a retryable failure, and the id is released", async () => {
  const { router, dispatcher, sink } = testRouter();
  dispatcher.answer = () => {
    throw new Error("queue closed");
  };
  const ev = ingress("issue_comment", issueCommentPayload({}), { deliveryId: "t" });
  const result = await router.route(ev);
  assert.equal(result.status, "routed");
  assert.deepEqual(result.status === "routed" && result.outcomes[0].outcome, {
    status: "failed",
    stage: "dispatcher",
    cause: "error",
    message: "queue closed",
    retry: true,
  });
  // the reason is the error's message alone, as it always read
  assert.equal(sink.ofType("routing.routed")[0].reason, "queue closed");
  assert.equal(sink.ofType("routing.routed")[0].level, "warning");
  await router.route(ev);
  assert.equal(dispatcher.events.length, 2);
});

// a config reload applies to the next event; the dedup cache is kept
Deno.test("setPolicy applies to the next event and keeps the dedup cache", async () => {
  const { router, dispatcher, sink } = testRouter({ policy: { authorizedUsers: ["alice"] } });
  const byCarol = issueCommentPayload({ login: "carol" });
  await router.route(ingress("issue_comment", byCarol, { deliveryId: "c1" }));
  await router.route(ingress("issue_comment", issueCommentPayload({}), { deliveryId: "a1" }));
  assert.equal(dispatcher.events.length, 1);
  router.setPolicy({ ...router.policy, authorizedUsers: ["carol"], autoExecuteLabel: "go" });
  await router.route(ingress("issue_comment", byCarol, { deliveryId: "c2" }));
  assert.equal(dispatcher.events.length, 2);
  assert.equal(dispatcher.events[1].actor, "carol");
  // the id seen before the reload is still a duplicate
  await router.route(ingress("issue_comment", issueCommentPayload({}), { deliveryId: "a1" }));
  assert.equal(dispatcher.events.length, 2);
  assert.equal(sink.ofType("routing.dropped").at(-1)!.reason, "duplicate-delivery");
  // the new label applies too
  await router.route(ingress("issues", issuesPayload({ sender: "carol", labels: ["go"] })));
  assert.equal(dispatcher.events[2].labeled, true);
});

// work-item extraction: the refs an event names
Deno.test("an event naming no work item is dropped as no-work-item", async () => {
  const { router, dispatcher, sink } = testRouter();
  const push = { ref: "refs/heads/main", repository: { full_name: "octo/repo" } };
  const result = await router.route(
    ingress("push", push),
  );
  assert.equal(result.status, "dropped"); // not in the filter
  router.setPolicy({ ...router.policy, events: [...router.policy.events, "push"] });
  const again = await router.route(ingress("push", push));
  assert.equal(again.status === "dropped" && again.reason, "no-work-item");
  assert.equal(dispatcher.events.length, 0);
  assert.equal(sink.ofType("routing.dropped").at(-1)!.level, "info");
});

// PR linkage: the linked issue's session gets the PR's comment
Deno.test("a PR comment goes to the linked issue's live session, reached through the PR", async () => {
  const { router, dispatcher, github, sink } = testRouter({ live: [I15] });
  github.closing.set("octo/repo#42", [{ repo: "octo/repo", number: 15 }]);
  const payload = issueCommentPayload({ number: 42, pr: true });
  await router.route(ingress("issue_comment", payload));
  assert.deepEqual(github.calls, ["closingIssues octo/repo#42"]);
  assert.deepEqual(dispatcher.refs, [I15]);
  assert.equal(dispatcher.events[0].linkedFrom, PR42);
  assert.equal(sink.ofType("routing.routed")[0].linked_from, PR42);
});

Deno.test("with no live session, a PR event goes to the first linked issue, before the PR", async () => {
  const { router, dispatcher } = testRouter();
  const payload = pullRequestPayload({ number: 42, action: "synchronize", body: "Fixes #15" });
  await router.route(ingress("pull_request", payload));
  assert.deepEqual(dispatcher.refs, [I15]);
  assert.equal(dispatcher.events[0].kind, "item");
});

Deno.test("a PR with a live session of its own gets its events over an idle linked issue", async () => {
  const { router, dispatcher } = testRouter({ live: [PR42] });
  const payload = reviewPayload({ number: 42, body: "Closes #15" });
  await router.route(ingress("pull_request_review", payload));
  assert.deepEqual(dispatcher.refs, [PR42]);
  assert.equal(dispatcher.events[0].linkedFrom, undefined);
  assert.equal(dispatcher.events[0].kind, "review");
});

Deno.test("the caller's closingIssues are used without asking GitHub", async () => {
  const { router, dispatcher, github } = testRouter();
  await router.route(
    ingress("issue_comment", issueCommentPayload({ number: 42, pr: true }), {
      via: "poll",
      closingIssues: [{ repo: "octo/other", number: 7 }],
    }),
  );
  assert.deepEqual(github.calls, []);
  assert.deepEqual(dispatcher.refs, ["github:octo/other#7"]);
});

Deno.test("a failing closingIssues call keeps the event, routed by branch and keywords", async () => {
  const { router, dispatcher, github, sink } = testRouter();
  github.closingError = new GitHubError({
    kind: "graphql",
    method: "POST",
    path: "/graphql",
    detail: "rate limited",
  });
  const payload = pullRequestPayload({ number: 42, action: "edited", body: "resolves #16" });
  await router.route(ingress("pull_request", payload, { deliveryId: "g1" }));
  assert.deepEqual(dispatcher.refs, ["github:octo/repo#16"]);
  const [warn] = sink.ofType("routing.linkage_unavailable");
  assert.equal(warn.level, "warning");
  assert.equal(warn.work_item, PR42);
  assert.equal(warn.delivery_id, "g1");
  assert.match(String(warn.error), /rate limited/);
});

// a ref only a branch name gives is checked for existence
Deno.test("a ref only a branch name invents is checked, and dropped on 404", async () => {
  const { router, dispatcher, github, sink } = testRouter();
  const payload = pullRequestPayload({ number: 42, head: "feature/issue-285", action: "opened" });
  await router.route(ingress("pull_request", payload, { deliveryId: "b1" }));
  assert.deepEqual(github.calls, ["closingIssues octo/repo#42", "getIssue octo/repo#285"]);
  assert.deepEqual(dispatcher.refs, [PR42]);
  const [dropped] = sink.ofType("routing.linkage_dropped");
  assert.equal(dropped.work_item, "github:octo/repo#285");
  assert.equal(dropped.linked_from, PR42);
  assert.equal(dropped.reason, "not-found");
  assert.equal(dropped.delivery_id, "b1");
});

Deno.test("a branch-named ref that exists is kept and preferred", async () => {
  const { router, dispatcher, github } = testRouter();
  github.existing.add("octo/repo#15");
  await router.route(
    ingress("pull_request", pullRequestPayload({ head: "claude/github-issue-15-x" })),
  );
  assert.deepEqual(dispatcher.refs, [I15]);
});

Deno.test("a branch-named ref whose existence cannot be established keeps its place", async () => {
  const { router, dispatcher, github, sink } = testRouter();
  github.issueError = new GitHubError({
    kind: "http",
    method: "GET",
    path: "/repos/octo/repo/issues/15",
    status: 502,
    detail: "Bad Gateway",
  });
  await router.route(ingress("pull_request", pullRequestPayload({ head: "issue/15" })));
  assert.deepEqual(dispatcher.refs, [I15]);
  assert.equal(sink.ofType("routing.linkage_dropped").length, 0);
});

Deno.test("a branch-named ref a live session owns is never questioned", async () => {
  const { router, dispatcher, github } = testRouter({ live: [I15] });
  await router.route(ingress("pull_request", pullRequestPayload({ head: "issue-15" })));
  assert.ok(!github.calls.some((c) => c.startsWith("getIssue")), github.calls.join());
  assert.deepEqual(dispatcher.refs, [I15]);
});

Deno.test("a branch ref corroborated by a closing keyword is not checked", async () => {
  const { router, github } = testRouter();
  await router.route(
    ingress("pull_request", pullRequestPayload({ head: "issue-15", body: "Fixes #15" })),
  );
  assert.deepEqual(github.calls, ["closingIssues octo/repo#42"]);
});

Deno.test("a CI run's branch issue is checked too, and all refs gone means no-work-item", async () => {
  const { router, dispatcher, sink } = testRouter();
  await router.route(ingress("workflow_run", workflowRunPayload({ headBranch: "issue-99" })));
  assert.equal(dispatcher.events.length, 0);
  assert.equal(sink.ofType("routing.linkage_dropped")[0].linked_from, null);
  assert.equal(sink.ofType("routing.dropped")[0].reason, "no-work-item");
});

// actor authorization: the comment's, the review's or the sender's login, against the allowlist
Deno.test("an actor outside the allowlist is dropped at warning level, naming the actor", async () => {
  const { router, dispatcher, sink } = testRouter();
  const result = await router.route(
    ingress("issue_comment", issueCommentPayload({ number: 15, login: "mallory" })),
  );
  assert.deepEqual(result, { status: "dropped", reason: "unauthorized-actor", actor: "mallory" });
  assert.equal(dispatcher.events.length, 0);
  const [drop] = sink.ofType("routing.dropped");
  assert.equal(drop.level, "warning");
  assert.equal(drop.actor, "mallory");
  assert.deepEqual(drop.work_items, [I15]);
});

Deno.test("logins compare case-insensitively", async () => {
  const { router, dispatcher } = testRouter();
  await router.route(ingress("issue_comment", issueCommentPayload({ login: "ALICE" })));
  await router.route(ingress("issue_comment", issueCommentPayload({ login: "bob" })));
  assert.deepEqual(dispatcher.events.map((e) => e.actor), ["ALICE", "bob"]);
});

Deno.test("the actor is the comment's, the review's, or the sender's login", async () => {
  const { router, dispatcher, sink } = testRouter({ policy: { authorizedUsers: ["alice"] } });
  const comment = issueCommentPayload({ login: "alice" });
  comment.sender.login = "mallory"; // the comment's author counts, not the sender
  await router.route(ingress("issue_comment", comment));
  const review = reviewPayload({ login: "mallory" });
  review.sender.login = "alice";
  await router.route(ingress("pull_request_review", review));
  await router.route(ingress("pull_request_review_comment", reviewCommentPayload({})));
  await router.route(ingress("issues", issuesPayload({ sender: "alice", action: "edited" })));
  assert.deepEqual(dispatcher.events.map((e) => e.kind), ["comment", "review_comment", "item"]);
  assert.equal(sink.ofType("routing.dropped")[0].actor, "mallory");
});

Deno.test("an empty allowlist drops every human event but lets CI and closes through", async () => {
  const { router, dispatcher, sink } = testRouter({ policy: { authorizedUsers: [] } });
  await router.route(ingress("issue_comment", issueCommentPayload({})));
  await router.route(ingress("issues", issuesPayload({ action: "labeled", label: LABEL })));
  await router.route(ingress("pull_request_review", reviewPayload({})));
  assert.equal(dispatcher.events.length, 0);
  assert.equal(sink.ofType("routing.dropped").length, 3);
  await router.route(ingress("check_run", checkRunPayload({ prs: [42] })));
  await router.route(ingress("issues", issuesPayload({ action: "closed", sender: "anyone" })));
  assert.deepEqual(dispatcher.events.map((e) => [e.kind, e.actor]), [
    ["ci", null],
    ["close", "anyone"],
  ]);
});

Deno.test("a comment with no author is unauthorized (fail closed)", async () => {
  const { router, dispatcher, sink } = testRouter();
  const payload = issueCommentPayload({});
  payload.comment.user = null;
  await router.route(ingress("issue_comment", payload));
  assert.equal(dispatcher.events.length, 0);
  assert.equal(sink.ofType("routing.dropped")[0].actor, null);
});

// a self-marked body is dropped before the allowlist is asked
Deno.test("a self-marked comment is dropped as self-authored, before the allowlist", async () => {
  const { router, dispatcher, sink } = testRouter();
  const text = markSelfAuthored("Started a session.");
  for (const login of ["alice", "mallory"]) {
    await router.route(ingress("issue_comment", issueCommentPayload({ text, login })));
  }
  await router.route(ingress("pull_request_review", reviewPayload({ text })));
  assert.equal(dispatcher.events.length, 0);
  assert.deepEqual(sink.ofType("routing.dropped").map((d) => d.reason), [
    "self-authored",
    "self-authored",
    "self-authored",
  ]);
  assert.equal(sink.ofType("routing.dropped")[0].level, "info");
});

// the labeled flag: the label added, or among the item's labels
Deno.test("labeled: from a labeled action, from the current labels, never from an empty label", async () => {
  const { router, dispatcher } = testRouter();
  await router.route(ingress("issues", issuesPayload({ action: "labeled", label: LABEL })));
  await router.route(ingress("issues", issuesPayload({ action: "labeled", label: "bug" })));
  await router.route(ingress("issue_comment", issueCommentPayload({ labels: [LABEL] })));
  await router.route(ingress("pull_request", pullRequestPayload({ labels: ["x", LABEL] })));
  await router.route(ingress("issue_comment", issueCommentPayload({})));
  assert.deepEqual(dispatcher.events.map((e) => e.labeled), [true, false, true, true, false]);
  router.setPolicy({ ...router.policy, autoExecuteLabel: "" });
  const blank = issuesPayload({ action: "labeled", label: "", labels: [""] });
  await router.route(ingress("issues", blank));
  assert.equal(dispatcher.events.at(-1)!.labeled, false);
});

// close semantics: an issue's close closes its session; a PR's only its own
Deno.test("an issue close is one close value of its own, past the allowlist", async () => {
  const { router, dispatcher } = testRouter();
  await router.route(ingress("issues", issuesPayload({ action: "closed", sender: "stranger" })));
  const [ev] = dispatcher.events;
  assert.equal(ev.kind, "close");
  assert.deepEqual(ev.close, { state: "closed", own: true });
  assert.equal(ev.text, "");
});

Deno.test("a PR close is handed on for every item, own only for the PR itself", async () => {
  const { router, dispatcher, github, sink } = testRouter({ live: [I15] });
  github.closing.set("octo/repo#42", [{ repo: "octo/repo", number: 15 }]);
  const payload = pullRequestPayload({ number: 42, action: "closed", merged: true });
  await router.route(ingress("pull_request", payload, { deliveryId: "m1" }));
  assert.deepEqual(
    dispatcher.events.map((e) => [e.workItem.ref, e.kind, e.close, e.linkedFrom]),
    [
      [I15, "close", { state: "merged", own: false }, PR42],
      [PR42, "close", { state: "merged", own: true }, undefined],
    ],
  );
  assert.equal(sink.ofType("routing.routed").length, 2);
});

Deno.test("an unmerged PR close says closed", async () => {
  const { router, dispatcher } = testRouter();
  await router.route(ingress("pull_request", pullRequestPayload({ action: "closed" })));
  assert.deepEqual(dispatcher.events[0].close, { state: "closed", own: true });
});

Deno.test("a presence nudge is routed as kind presence", async () => {
  const { router, dispatcher } = testRouter();
  const payload = issuesPayload({ action: "labeled", labels: [LABEL] });
  await router.route(ingress("issues", payload, { via: "poll", presence: true }));
  assert.equal(dispatcher.events[0].kind, "presence");
  assert.equal(dispatcher.events[0].labeled, true);
});

Deno.test("an inline review comment's subject carries its file and line", async () => {
  const { router, dispatcher } = testRouter();
  await router.route(ingress("pull_request_review_comment", reviewCommentPayload({ line: null })));
  const { subject } = dispatcher.events[0];
  assert.equal(subject?.kind, "review_comment");
  assert.equal(subject?.path, "src/a.ts");
  assert.equal(subject?.line, 5); // original_line when line is null
  assert.equal(subject?.number, 42);
});

Deno.test("no routing event carries a comment's or review's body", async () => {
  const { router, sink, dispatcher } = testRouter();
  const secret = "TOP-SECRET-BODY-TEXT";
  dispatcher.answer = (e) =>
    e.kind === "review"
      ? { status: "failed", stage: "deliver", cause: "error", message: "x", retry: false }
      : { status: "delivered" };
  await router.route(ingress("issue_comment", issueCommentPayload({ text: secret })));
  await router.route(ingress("issue_comment", issueCommentPayload({ text: secret, login: "eve" })));
  await router.route(ingress("pull_request_review", reviewPayload({ text: secret })));
  await router.route(
    ingress("issue_comment", issueCommentPayload({ text: markSelfAuthored(secret) })),
  );
  assert.ok(sink.records.length >= 4);
  for (const r of sink.records) assert.ok(!JSON.stringify(r).includes(secret), r.event);
});

Deno.test("the same scenario by webhook and by poll leaves the same events", async () => {
  const scenario = async (via: "gh-webhook" | "poll") => {
    const { router, github, sink } = testRouter({ live: [I15] });
    github.closing.set("octo/repo#42", [{ repo: "octo/repo", number: 15 }]);
    const payloads: [string, Record<string, unknown>][] = [
      ["issue_comment", issueCommentPayload({ number: 42, pr: true })],
      ["issue_comment", issueCommentPayload({ number: 15, login: "mallory" })],
      ["pull_request", pullRequestPayload({ number: 42, action: "closed", merged: true })],
    ];
    for (const [i, [ghEvent, payload]] of payloads.entries()) {
      const deliveryId = via === "poll" ? `poll-comment-${i}` : crypto.randomUUID();
      await router.route({ ghEvent, payload, via, deliveryId });
    }
    return sink.records.map(({ ts: _t, pid: _p, source: _s, delivery_id: _d, ...rest }) => rest);
  };
  const byHook = await scenario("gh-webhook");
  assert.equal(byHook.length, 4);
  assert.deepEqual(await scenario("poll"), byHook);
});

Deno.test("a session lookup that throws rethrows and releases the delivery id", async () => {
  const { router, dispatcher, sessions } = testRouter();
  const live = sessions.live.bind(sessions);
  sessions.live = () => Promise.reject(new Error("registry unreadable"));
  // two items the comment may concern: which one has a live session decides
  const ev = ingress("issue_comment", issueCommentPayload({ number: 42, pr: true }), {
    deliveryId: "r1",
    closingIssues: [{ repo: "octo/other", number: 7 }, { repo: "octo/other", number: 8 }],
  });
  await assert.rejects(router.route(ev), /registry unreadable/);
  sessions.live = live;
  await router.route(ev);
  assert.equal(dispatcher.events.length, 1);
});
