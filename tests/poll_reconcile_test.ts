/**
 * Pull requests and closures: the three comment kinds merged in time order, a PR that closes an
 * issue routing to it, closed and merged items closing their sessions, never on doubt, a reopened
 * item starting over, and provider errors.
 */
import assert from "node:assert/strict";
import { LABEL, pollHarness, ref, REPO } from "../poll/_test_utils.ts";

Deno.test("a PR's conversation comments, reviews with a body and inline comments go over once each, in time order", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    let t = Date.parse("2026-03-01T10:00:00Z");
    w.clock = () => t;
    const pr = w.addPull(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(pr.number));
    await h.cycle();
    t += 1000;
    const review = w.addReview(REPO, pr.number, { body: "needs work", user: "alice" });
    t += 1000;
    w.addReview(REPO, pr.number, { body: "", state: "APPROVED", user: "alice" }); // silent
    w.addReview(REPO, pr.number, { body: "draft", state: "PENDING", user: "alice" });
    t += 1000;
    const inline = w.addReviewComment(REPO, pr.number, {
      body: "off by one",
      path: "src/a.ts",
      line: 12,
      user: "alice",
    });
    t += 1000;
    const convo = w.addComment(REPO, pr.number, "and rebase", "alice");
    w.addReview(REPO, pr.number, { body: "sneaky", user: "mallory" });
    await h.cycle();
    await h.cycle();
    assert.deepEqual(
      h.dispatcher.events.map((e) => [e.kind, e.ghEvent, e.subject?.nodeId]),
      [
        ["review", "pull_request_review", review.node_id],
        ["review_comment", "pull_request_review_comment", inline.node_id],
        ["comment", "issue_comment", convo.node_id],
      ],
    );
    const ic = h.dispatcher.events[1];
    assert.equal(ic.subject?.path, "src/a.ts");
    assert.equal(ic.subject?.line, 12);
    assert.equal(h.sink.ofType("routing.dropped").filter((d) => d.actor === "mallory").length, 1);
  } finally {
    await h.close();
  }
});

Deno.test("a PR that closes an issue with a session routes its comments there and spawns nothing", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { user: "alice" }); // #1, not labelled
    const pr = w.addPull(REPO, {
      labels: [LABEL],
      user: "alice",
      closes: [{ number: issue.number }],
    });
    await h.addSession(ref(issue.number));
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0, "no presence: the linked issue has a session");
    w.addComment(REPO, pr.number, "ship it", "alice");
    await h.cycle();
    assert.deepEqual(h.dispatcher.summary(), [["comment", ref(issue.number), "alice"]]);
    assert.equal(h.dispatcher.events[0].linkedFrom, ref(pr.number));
    // the issue is not listed itself: it is checked for closure, still open, so nothing closes;
    // and once known, the check is a conditional GET GitHub answers 304
    const checks = () =>
      h.gh.requests.filter((r) => r.path === `/repos/${REPO}/issues/${issue.number}`);
    assert.ok(checks().length > 0);
    assert.ok(!h.dispatcher.events.some((e) => e.kind === "close"));
    const before = checks().length;
    await h.cycle();
    assert.deepEqual(checks().slice(before).map((r) => r.status), [304]);
    // closing the issue (the PR still open) closes the issue's session
    w.close(REPO, issue.number);
    await h.cycle();
    assert.deepEqual(
      h.dispatcher.events.filter((e) => e.kind === "close").map((e) => e.workItem.ref),
      [ref(issue.number)],
    );
  } finally {
    await h.close();
  }
});

Deno.test("a closed issue closes its session, clears its ledger and control record", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.control.record({
      ref: ref(1),
      command: "start",
      source: "comment",
      actor: "alice",
      requestedAt: new Date().toISOString(),
      note: "",
    });
    await h.cycle();
    h.gh.world.close(REPO, issue.number);
    const report = await h.cycle();
    assert.equal(report.closures, 1);
    const detected = h.sink.ofType("poll.closure_detected");
    assert.deepEqual(detected.map((d) => [d.work_item, d.state, d.kind]), [[
      ref(1),
      "closed",
      "issue",
    ]]);
    const close = h.dispatcher.events.at(-1)!;
    assert.equal(close.kind, "close");
    assert.equal(close.deliveryId, `poll-close-${ref(1)}-closed`);
    assert.deepEqual(close.close, { state: "closed", own: true });
    assert.equal(h.ledger.get(ref(1)), undefined);
    assert.equal(await h.control.get(ref(1)), undefined);
    await h.cycle();
    assert.equal(h.dispatcher.events.filter((e) => e.kind === "close").length, 1, "once");
  } finally {
    await h.close();
  }
});

Deno.test("a merged PR closes its own session as merged", async () => {
  const h = await pollHarness();
  try {
    const pr = h.gh.world.addPull(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(pr.number));
    await h.cycle();
    h.gh.world.close(REPO, pr.number, { merged: true });
    await h.cycle();
    const close = h.dispatcher.events.at(-1)!;
    assert.equal(close.ghEvent, "pull_request");
    assert.deepEqual(close.close, { state: "merged", own: true });
    assert.equal(h.sink.ofType("poll.closure_detected")[0].kind, "pull_request");
  } finally {
    await h.close();
  }
});

Deno.test("no session is closed on doubt", async (t) => {
  await t.step("the item is still open (its label was removed)", async () => {
    const h = await pollHarness();
    try {
      h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
      await h.addSession(ref(1));
      await h.cycle();
      h.gh.world.removeLabel(REPO, 1, LABEL);
      await h.cycle();
      assert.equal(h.dispatcher.events.length, 0);
      assert.equal(h.ledger.get(ref(1))!.absent, true);
    } finally {
      await h.close();
    }
  });
  await t.step("the closure query fails", async () => {
    const h = await pollHarness();
    try {
      h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
      await h.addSession(ref(1));
      await h.cycle();
      h.gh.world.close(REPO, 1);
      h.gh.fault({ path: `/repos/${REPO}/issues/1`, kind: "status", status: 502 });
      const report = await h.cycle();
      assert.equal(report.errors, 1);
      assert.equal(h.dispatcher.events.length, 0);
      assert.equal(h.sink.ofType("poll.provider_error")[0].operation, "closure");
      await h.cycle(); // answerable now
      assert.equal(h.dispatcher.events.at(-1)?.kind, "close");
    } finally {
      await h.close();
    }
  });
  await t.step("the listing fails", async () => {
    const h = await pollHarness();
    try {
      h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
      await h.addSession(ref(1));
      await h.cycle();
      h.gh.world.close(REPO, 1);
      h.gh.fault({ path: `/repos/${REPO}/issues`, kind: "status", status: 502 });
      const report = await h.cycle();
      assert.equal(report.errors, 1);
      assert.equal(report.complete, false);
      assert.equal(h.dispatcher.events.length, 0);
      const err = h.sink.ofType("poll.provider_error")[0];
      assert.deepEqual([err.operation, err.level, err.will_retry, err.repo], [
        "list",
        "error",
        true,
        REPO,
      ]);
      assert.ok(!JSON.stringify(err).includes("t0k-poll"), "no token in errors");
      const next = await h.cycle();
      assert.equal(next.errors, 0, "the next cycle runs normally");
      assert.equal(next.closures, 1);
    } finally {
      await h.close();
    }
  });
  await t.step("the cycle was interrupted", async () => {
    const h = await pollHarness();
    try {
      h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
      await h.addSession(ref(1));
      await h.cycle();
      h.gh.world.close(REPO, 1);
      const ac = new AbortController();
      ac.abort();
      const report = await h.cycle({ signal: ac.signal });
      assert.equal(report.interrupted, true);
      assert.equal(h.dispatcher.events.length, 0);
    } finally {
      await h.close();
    }
  });
  await t.step("the session is outside the sources' repos", async () => {
    const h = await pollHarness();
    try {
      h.gh.world.addIssue("octo/elsewhere", { user: "alice" });
      h.gh.world.close("octo/elsewhere", 1);
      await h.addSession(ref(1, "octo/elsewhere"));
      await h.cycle();
      assert.equal(h.dispatcher.events.length, 0);
      assert.ok(!h.gh.requests.some((r) => r.path.startsWith("/repos/octo/elsewhere")));
    } finally {
      await h.close();
    }
  });
  await t.step("a merged PR's issue is still open", async () => {
    const h = await pollHarness();
    try {
      const w = h.gh.world;
      const issue = w.addIssue(REPO, { user: "alice" });
      const pr = w.addPull(REPO, { labels: [LABEL], user: "alice", closes: [{ number: 1 }] });
      await h.addSession(ref(issue.number));
      await h.cycle();
      w.close(REPO, pr.number, { merged: true });
      await h.cycle();
      assert.equal(h.dispatcher.events.length, 0, "the issue is open: its session stays");
    } finally {
      await h.close();
    }
  });
});

Deno.test("an item reopened and relabelled after its close is first sight again", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    w.close(REPO, issue.number);
    await h.cycle();
    await h.registry.write({ ...(await h.registry.live(ref(1)))!, status: "closed" });
    w.reopen(REPO, issue.number);
    await h.cycle();
    assert.deepEqual(h.dispatcher.summary().map((s) => s[0]), ["close", "presence"]);
  } finally {
    await h.close();
  }
});

Deno.test("comments made just before a close reach the session first, then the close", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(issue.number));
    await h.cycle(); // first sight
    w.addComment(REPO, issue.number, "one last thing", "alice");
    w.close(REPO, issue.number);
    await h.cycle(); // the item is no longer listed (closed): its thread is still read once
    assert.deepEqual(
      h.dispatcher.events.map((e) => [e.kind, e.workItem.ref]),
      [["comment", ref(issue.number)], ["close", ref(issue.number)]],
    );
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 2, "each handed over once");
  } finally {
    await h.close();
  }
});
