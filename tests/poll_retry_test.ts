/**
 * The poller's bookkeeping of outcomes: retries and the give-up notice, timed-out deliveries,
 * re-arming another version's give-ups, settled outcomes, presence and its budget, the start
 * requirement, and a stop request between items.
 */
import assert from "node:assert/strict";
import { isSelfAuthored } from "../github/mod.ts";
import { LABEL, pollHarness, ref, REPO } from "../poll/_test_utils.ts";
import type { RoutedEvent } from "../dispatch/mod.ts";

const isComment = (e: RoutedEvent) => e.kind === "comment";
const isPresence = (e: RoutedEvent) => e.kind === "presence";

Deno.test("a failing delivery is retried, then given up on with one notice that never quotes it", async () => {
  const h = await pollHarness({ maxRetries: 3, version: "9.9.9" });
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const c = h.gh.world.addComment(REPO, issue.number, "SECRET-BODY-TEXT please", "alice");
    h.dispatcher.answer(isComment, {
      status: "failed",
      stage: "deliver",
      cause: "error",
      message: "harness down",
      retry: true,
    }, 5);
    for (let i = 0; i < 5; i++) await h.cycle();
    const failed = h.sink.ofType("poll.comment_failed");
    assert.deepEqual(failed.map((f) => [f.attempt, f.will_retry, f.level]), [
      [1, true, "warning"],
      [2, true, "warning"],
      [3, false, "error"],
    ]);
    assert.equal(failed[2].url, c.html_url);
    const rec = h.ledger.get(ref(1))!;
    assert.ok(rec.seenComments.includes(c.node_id));
    assert.deepEqual(rec.commentAttempts, {});
    assert.deepEqual(rec.gaveUp, { comments: [c.node_id], version: "9.9.9" });
    const notices = h.gh.requests.filter((r) => r.method === "POST" && /\/comments$/.test(r.path));
    assert.equal(notices.length, 1, "exactly one notice");
    assert.equal(notices[0].path, `/repos/${REPO}/issues/1/comments`);
    const body = notices[0].body.body as string;
    assert.ok(body.includes(c.html_url), "names the comment");
    assert.ok(!body.includes("SECRET-BODY-TEXT"), "never quotes it");
    assert.ok(isSelfAuthored(body));
    assert.equal(h.dispatcher.events.filter(isComment).length, 3);
    // the notice itself (self-marked) is never forwarded
    assert.ok(h.sink.ofType("routing.dropped").some((d) => d.reason === "self-authored"));
    for (const r of h.sink.records) assert.ok(!JSON.stringify(r).includes("SECRET-BODY-TEXT"));
  } finally {
    await h.close();
  }
});

Deno.test("a delivery failing for good is given up at once", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    h.gh.world.addComment(REPO, issue.number, "x", "alice");
    h.dispatcher.answer(isComment, {
      status: "failed",
      stage: "deliver",
      cause: "error",
      message: "bad prompt",
      retry: false,
    });
    await h.cycle();
    await h.cycle();
    const failed = h.sink.ofType("poll.comment_failed");
    assert.deepEqual(failed.map((f) => [f.attempt, f.will_retry]), [[1, false]]);
    assert.equal(h.dispatcher.events.length, 1);
  } finally {
    await h.close();
  }
});

Deno.test("a timed-out delivery spends an attempt and is retried", async () => {
  const h = await pollHarness({ maxRetries: 2 });
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const c = h.gh.world.addComment(REPO, issue.number, "x", "alice");
    h.dispatcher.answer(isComment, {
      status: "failed",
      stage: "deliver",
      cause: "timeout",
      message: "delivering to claude did not finish within dispatchTimeoutSeconds",
      retry: true,
    });
    await h.cycle();
    const failed = h.sink.ofType("poll.comment_failed");
    assert.deepEqual(failed.map((f) => [f.attempt, f.will_retry, f.reason]), [
      [1, true, "deliver: delivering to claude did not finish within dispatchTimeoutSeconds"],
    ]);
    assert.equal(h.sink.ofType("poll.attempts_released").length, 0, "a timeout is no stop");
    await h.cycle();
    assert.equal(h.dispatcher.events.filter(isComment).length, 2, "asked again, delivered");
    assert.ok(h.ledger.get(ref(1))!.seenComments.includes(c.node_id));
  } finally {
    await h.close();
  }
});

Deno.test("give-ups by another version are re-armed once; the running version's never", async () => {
  const h = await pollHarness({ maxRetries: 1, version: "1.0.0" });
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const c = h.gh.world.addComment(REPO, issue.number, "x", "alice");
    h.dispatcher.answer(isComment, {
      status: "failed",
      stage: "deliver",
      cause: "error",
      message: "down",
      retry: true,
    });
    await h.cycle(); // given up by 1.0.0
    await h.restart({ version: "1.0.0" });
    await h.cycle();
    assert.equal(h.sink.ofType("poll.rearmed").length, 0, "the same version never retries");
    await h.restart({ version: "2.0.0" });
    await h.cycle(); // re-armed and delivered
    await h.cycle();
    const rearmed = h.sink.ofType("poll.rearmed");
    assert.equal(rearmed.length, 1);
    assert.deepEqual(rearmed[0].comments, [c.node_id]);
    assert.equal(rearmed[0].gave_up_version, "1.0.0");
    assert.equal(h.dispatcher.events.filter(isComment).length, 2);
    assert.equal(h.ledger.get(ref(1))!.gaveUp, undefined);
  } finally {
    await h.close();
  }
});

Deno.test("a settled comment is seen with no attempt and never retried", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const c = h.gh.world.addComment(REPO, issue.number, "x", "alice");
    h.dispatcher.answer(isComment, { status: "settled", reason: "awaiting-start" });
    await h.cycle();
    await h.cycle();
    await h.restart({ version: "2.0.0" });
    await h.cycle();
    const settled = h.sink.ofType("poll.comment_settled");
    assert.deepEqual(settled.map((s) => [s.comment, s.outcome]), [[c.node_id, "awaiting-start"]]);
    assert.equal(h.sink.ofType("poll.comment_failed").length, 0);
    assert.equal(h.dispatcher.events.filter(isComment).length, 1);
  } finally {
    await h.close();
  }
});

Deno.test("presence is retried each cycle, then given up; a new comment re-arms it", async () => {
  const h = await pollHarness({ maxRetries: 2 });
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    h.dispatcher.answer(isPresence, {
      status: "failed",
      stage: "deliver",
      cause: "error",
      message: "spawn failed",
      retry: true,
    }, 2);
    await h.cycle();
    await h.cycle();
    await h.cycle(); // budget spent: nothing more
    assert.equal(h.dispatcher.events.filter(isPresence).length, 2);
    const gaveUp = h.sink.ofType("poll.spawn_failed");
    assert.deepEqual(gaveUp.map((g) => [g.work_item, g.attempts, g.level]), [[ref(1), 2, "error"]]);
    h.gh.world.addComment(REPO, issue.number, "try again", "alice");
    await h.cycle();
    assert.deepEqual(h.dispatcher.summary().slice(-2).map((s) => s[0]), ["comment", "presence"]);
    await h.cycle();
    assert.equal(h.dispatcher.events.filter(isPresence).length, 3, "delivered: asked no more");
  } finally {
    await h.close();
  }
});

Deno.test("a known item with no activity never spawns by itself", async () => {
  const h = await pollHarness();
  try {
    h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle(); // first sight, has a session: nothing
    await h.registry.write({ ...(await h.registry.live(ref(1)))!, status: "closed" });
    await h.cycle();
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
  } finally {
    await h.close();
  }
});

Deno.test("with requireStartCommand no presence is sent until a start is recorded", async () => {
  const h = await pollHarness({ requireStartCommand: true, maxRetries: 1 });
  try {
    h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    h.dispatcher.fallback = {
      status: "failed",
      stage: "deliver",
      cause: "error",
      message: "never",
      retry: true,
    };
    for (let i = 0; i < 3; i++) await h.cycle();
    assert.equal(h.dispatcher.events.length, 0, "no presence, no budget spent");
    h.dispatcher.fallback = { status: "delivered" };
    await h.control.record({
      ref: ref(1),
      command: "start",
      source: "cli",
      actor: "alice",
      requestedAt: new Date().toISOString(),
      note: "sessions start",
    });
    await h.cycle();
    assert.deepEqual(h.dispatcher.summary(), [["presence", ref(1), "alice"]]);
  } finally {
    await h.close();
  }
});

Deno.test("a stop request ends the cycle between items; abandoned attempts are given back", async () => {
  const h = await pollHarness({ maxRetries: 1 });
  try {
    const w = h.gh.world;
    const a = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    const b = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(a.number));
    await h.addSession(ref(b.number));
    await h.cycle();
    w.addComment(REPO, a.number, "for A", "alice");
    w.addComment(REPO, b.number, "for B", "alice");
    const ac = new AbortController();
    h.dispatcher.answer(() => true, {
      status: "failed",
      stage: "queue",
      cause: "aborted",
      message: "aborted",
      retry: true,
    });
    const original = h.dispatcher.dispatch.bind(h.dispatcher);
    h.dispatcher.dispatch = (event) => {
      ac.abort(); // the stop arrives while the first item is being delivered
      return original(event);
    };
    const report = await h.cycle({ signal: ac.signal });
    assert.equal(report.interrupted, true);
    assert.equal(h.dispatcher.events.length, 1, "no later item started");
    assert.equal(h.sink.ofType("poll.attempts_released").length, 1);
    assert.equal(h.sink.ofType("poll.cycle").at(-1)!.interrupted, true);
    h.dispatcher.dispatch = original;
    await h.cycle();
    // a full budget (maxRetries 1) was left: both delivered now, nothing given up
    assert.equal(h.sink.ofType("poll.comment_failed").length, 0);
    assert.equal(h.dispatcher.events.length, 3);
  } finally {
    await h.close();
  }
});
