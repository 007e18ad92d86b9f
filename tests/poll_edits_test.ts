/**
 * Who acted, by poll: a comment or review the poller reads for the first
 * time after someone edited it is that editor's act, as the webhook's `edited` delivery says —
 * the poller asks GitHub who last edited what it hands over (GraphQL; REST does not say), so both
 * ingress paths authorize the same login. An edit of a comment the poller already read is not
 * handed over again (an edit reaches a session by webhook only).
 */
import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { DEFAULT_EVENTS, Router } from "../ingress/mod.ts";
import { LABEL, pollHarness, ref, REPO, START } from "../poll/_test_utils.ts";

Deno.test("a stranger's edit before the first read is dropped, naming both; nothing is handed over", async () => {
  const h = await pollHarness({ authorizedUsers: ["alice", "bob"] });
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle(); // first sight
    const c = w.addComment(REPO, issue.number, "looks good", "alice");
    w.editComment(REPO, c.node_id, START, "mallory");
    await h.cycle();
    assert.deepEqual(h.dispatcher.events, []);
    const [drop] = h.sink.ofType("routing.dropped");
    assert.deepEqual(
      [drop.reason, drop.gh_event, drop.action, drop.actor, drop.author],
      ["unauthorized-actor", "issue_comment", "edited", "mallory", "alice"],
    );
    // seen: never looked at again
    await h.cycle();
    assert.equal(h.sink.ofType("routing.dropped").length, 1);
  } finally {
    await h.close();
  }
});

Deno.test("an allowlisted editor's edit is theirs; an author's own edit is the author's", async () => {
  const h = await pollHarness({ authorizedUsers: ["alice", "bob"] });
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const a = w.addComment(REPO, issue.number, "first", "alice");
    w.editComment(REPO, a.node_id, "first, fixed", "bob");
    const b = w.addComment(REPO, issue.number, "second", "alice");
    w.editComment(REPO, b.node_id, "second, fixed", "alice");
    await h.cycle();
    assert.deepEqual(
      h.dispatcher.events.map((e) => [e.action, e.actor, e.author ?? null, e.text]),
      [
        ["edited", "bob", "alice", "first, fixed"],
        ["created", "alice", null, "second, fixed"],
      ],
    );
    // one query for the editors of the read, however many entries it hands over
    const asked = h.gh.requests.filter((r) =>
      r.path === "/graphql" && r.method === "POST" &&
      /\beditor\b/.test(String((r.body as { query?: unknown } | undefined)?.query))
    );
    assert.equal(asked.length, 1, `one editors query (${asked.length})`);
  } finally {
    await h.close();
  }
});

Deno.test("a review or an inline comment edited by a stranger before the first read is dropped", async () => {
  const h = await pollHarness({ authorizedUsers: ["alice"] });
  try {
    const w = h.gh.world;
    const pr = w.addPull(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(pr.number));
    await h.cycle();
    const review = w.addReview(REPO, pr.number, { body: "fine", user: "alice" });
    w.editComment(REPO, review.node_id, START, "mallory");
    const inline = w.addReviewComment(REPO, pr.number, {
      body: "ok",
      path: "a.ts",
      line: 1,
      user: "alice",
    });
    w.editComment(REPO, inline.node_id, START, "mallory");
    await h.cycle();
    assert.deepEqual(h.dispatcher.events, []);
    assert.deepEqual(
      h.sink.ofType("routing.dropped").map((d) => [d.gh_event, d.action, d.actor, d.author]),
      [
        ["pull_request_review", "edited", "mallory", "alice"],
        ["pull_request_review_comment", "edited", "mallory", "alice"],
      ],
    );
  } finally {
    await h.close();
  }
});

Deno.test("when GitHub cannot say who edited, nothing is handed over and the entry is retried", async () => {
  const h = await pollHarness({ authorizedUsers: ["alice"] });
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    w.addComment(REPO, issue.number, "hello", "alice");
    h.gh.fault({ path: "/graphql", method: "POST", kind: "status", status: 502 });
    await h.cycle();
    assert.deepEqual(h.dispatcher.events, []);
    const [failed] = h.sink.ofType("poll.comment_failed");
    assert.match(String(failed.reason), /who last edited it could not be asked/);
    assert.equal(failed.will_retry, true);
    await h.cycle();
    assert.deepEqual(h.dispatcher.summary(), [["comment", ref(1), "alice"]]);
  } finally {
    await h.close();
  }
});

Deno.test("the poller's decision on a stranger's edit is the webhook's, field for field", async () => {
  const h = await pollHarness({ authorizedUsers: ["alice"] });
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const c = w.addComment(REPO, issue.number, "looks good", "alice");
    w.editComment(REPO, c.node_id, START, "mallory");
    await h.cycle();
    // the same world change, as the receiver hands GitHub's `edited` delivery to its router
    const edited = w.changes.at(-1)!;
    assert.equal(edited.action, "edited");
    const sink = new MemorySink({ source: "poll", strict: true });
    const router = new Router({
      dispatcher: h.dispatcher,
      sessions: h.registry,
      github: h.client,
      events: sink,
      policy: { events: [...DEFAULT_EVENTS], authorizedUsers: ["alice"], autoExecuteLabel: LABEL },
    });
    await router.route({
      ghEvent: edited.event,
      payload: edited.payload,
      via: "gh-webhook",
      deliveryId: crypto.randomUUID(),
    });
    const decided = (s: MemorySink) =>
      s.records.filter((r) => String(r.event).startsWith("routing."))
        .map(({ ts: _t, pid: _p, source: _s, delivery_id: _d, ...rest }) => rest);
    assert.deepEqual(decided(sink), decided(h.sink));
    assert.equal(decided(sink).length, 1);
  } finally {
    await h.close();
  }
});
