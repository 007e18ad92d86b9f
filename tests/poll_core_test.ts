/**
 * The poller, in process, against the fake GitHub and the real router, with a scripted
 * dispatcher: listing, change detection, first sight, authorization, the self-marker, comments
 * handed over once (across cycles and restarts), and the cost of an idle cycle.
 */
import assert from "node:assert/strict";
import { markSelfAuthored } from "../github/mod.ts";
import { Ledger, LedgerError } from "../poll/mod.ts";
import { LABEL, pollHarness, ref, REPO, START, STOP } from "../poll/_test_utils.ts";

Deno.test("a cycle lists only open labelled items, and monitor switches each kind off", async () => {
  const h = await pollHarness({ pullRequests: false });
  try {
    const w = h.gh.world;
    w.addIssue(REPO, { labels: [LABEL], user: "alice" }); // #1
    w.addIssue(REPO, { labels: [], user: "alice" }); // #2: unlabelled
    const closed = w.addIssue(REPO, { labels: [LABEL], user: "alice" }); // #3
    w.close(REPO, closed.number);
    w.addPull(REPO, { labels: [LABEL], user: "alice" }); // #4: PRs are switched off
    const report = await h.cycle();
    assert.equal(report.itemsSeen, 1);
    assert.deepEqual(h.ledger.refs(), [ref(1)]);
    const lists = h.gh.requests.filter((r) => r.path === `/repos/${REPO}/issues`);
    assert.equal(lists.length, 1, "one listing request per repo and label");
    assert.equal(lists[0].query.labels, LABEL);
    assert.equal(lists[0].query.state, "open");
  } finally {
    await h.close();
  }
});

Deno.test("first sight baselines the thread, forwards nothing, and spawns a vouched item", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    const old = w.addComment(REPO, issue.number, "some context", "alice");
    await h.cycle();
    const rec = h.ledger.get(ref(1))!;
    assert.deepEqual(rec.seenComments, [old.node_id]);
    assert.deepEqual(rec.commentAttempts, {});
    assert.ok(rec.lastPolledAt);
    assert.deepEqual(h.dispatcher.summary(), [["presence", ref(1), "alice"]]);
    assert.match(
      h.dispatcher.events[0].deliveryId,
      /^poll-presence-github:octo\/repo#1-[0-9a-f-]{36}$/,
    );
    // the file on disk holds the same record
    const disk = JSON.parse(await Deno.readTextFile(h.ledgerPath));
    assert.deepEqual(disk.items[ref(1)].seenComments, [old.node_id]);
  } finally {
    await h.close();
  }
});

Deno.test("first sight of an item that has a session only baselines", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    h.gh.world.addComment(REPO, issue.number, "hello", "alice");
    await h.addSession(ref(1));
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
    assert.equal(h.ledger.get(ref(1))!.seenComments.length, 1);
  } finally {
    await h.close();
  }
});

Deno.test("first sight applies authorized control keywords in thread order; others are baselined", async () => {
  const h = await pollHarness({ authorizedUsers: ["alice"], requireStartCommand: true });
  try {
    const w = h.gh.world;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    const start = w.addComment(REPO, issue.number, `please ${START}`, "alice");
    w.addComment(REPO, issue.number, `${START} ${STOP}`, "alice"); // ambiguous
    w.addComment(REPO, issue.number, START, "mallory"); // unauthorized
    w.addComment(REPO, issue.number, markSelfAuthored(START), "alice"); // the-loop's own
    const stop = w.addComment(REPO, issue.number, STOP, "alice");
    await h.cycle();
    const handed = h.dispatcher.events.filter((e) => e.kind === "comment");
    assert.deepEqual(handed.map((e) => e.subject?.nodeId), [start.node_id, stop.node_id]);
    assert.deepEqual(h.ledger.get(ref(1))!.seenComments.length, 5);
  } finally {
    await h.close();
  }
});

Deno.test("first sight does not replay keywords when the item already has a control record", async () => {
  const h = await pollHarness({ requireStartCommand: true });
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    h.gh.world.addComment(REPO, issue.number, START, "alice");
    await h.control.record({
      ref: ref(1),
      command: "stop",
      source: "cli",
      actor: "alice",
      requestedAt: new Date().toISOString(),
      note: "",
    });
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
  } finally {
    await h.close();
  }
});

Deno.test("an empty allowlist spawns nothing and forwards nothing", async () => {
  const h = await pollHarness({ authorizedUsers: [] });
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.cycle();
    h.gh.world.addComment(REPO, issue.number, "do it", "alice");
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
    assert.equal(h.sink.ofType("routing.dropped")[0].reason, "unauthorized-actor");
  } finally {
    await h.close();
  }
});

Deno.test("an unauthorized comment is recorded as dropped, seen, and never looked at again", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const evil = h.gh.world.addComment(REPO, issue.number, "rm -rf", "mallory");
    await h.cycle();
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
    const dropped = h.sink.ofType("routing.dropped");
    assert.equal(dropped.length, 1);
    assert.equal(dropped[0].reason, "unauthorized-actor");
    assert.equal(dropped[0].actor, "mallory");
    assert.ok(h.ledger.get(ref(1))!.seenComments.includes(evil.node_id));
  } finally {
    await h.close();
  }
});

Deno.test("an item opened by an outsider is not started by the poller, but a maintainer's comment goes through", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "mallory" });
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
    const warned = h.sink.ofType("poll.unauthorized");
    assert.equal(warned.length, 1);
    assert.equal(warned[0].actor, "mallory");
    assert.equal(warned[0].level, "warning");
    h.gh.world.addComment(REPO, issue.number, "looks good, go", "alice");
    await h.cycle();
    assert.deepEqual(h.dispatcher.summary()[0], ["comment", ref(1), "alice"]);
    assert.equal(h.sink.ofType("poll.unauthorized").length, 1, "warned once");
  } finally {
    await h.close();
  }
});

Deno.test("a self-marked comment is never forwarded, whoever posted it", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    h.gh.world.addComment(REPO, issue.number, markSelfAuthored("Started."), "alice");
    await h.cycle();
    assert.equal(h.dispatcher.events.length, 0);
    assert.equal(h.sink.ofType("routing.dropped")[0].reason, "self-authored");
  } finally {
    await h.close();
  }
});

Deno.test("a new comment is handed over once, across cycles and a restart", async () => {
  const h = await pollHarness();
  try {
    const issue = h.gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    await h.cycle();
    const c = h.gh.world.addComment(REPO, issue.number, "please also add tests", "alice");
    await h.cycle();
    await h.cycle();
    await h.restart();
    await h.cycle();
    assert.deepEqual(h.dispatcher.events.map((e) => e.deliveryId), [`poll-comment-${c.node_id}`]);
    assert.equal(h.dispatcher.events[0].kind, "comment");
    const rec = h.ledger.get(ref(1))!;
    assert.deepEqual(rec.seenComments, [c.node_id]);
    assert.deepEqual(rec.inFlight, []);
  } finally {
    await h.close();
  }
});

Deno.test("each item is on disk before the next one is processed", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    const a = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    const b = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(a.number));
    await h.addSession(ref(b.number));
    await h.cycle();
    const ca = w.addComment(REPO, a.number, "for A", "alice");
    const cb = w.addComment(REPO, b.number, "for B", "alice");
    const disk: Record<string, { seenComments: string[] }>[] = [];
    const original = h.dispatcher.dispatch.bind(h.dispatcher);
    h.dispatcher.dispatch = async (event) => {
      disk.push(JSON.parse(await Deno.readTextFile(h.ledgerPath)).items);
      return original(event);
    };
    await h.cycle();
    // the listing is newest first: B, then A; when A's comment is handed over, B is on disk
    assert.deepEqual(h.dispatcher.events.map((e) => e.subject?.nodeId), [cb.node_id, ca.node_id]);
    assert.ok(disk[1][ref(b.number)].seenComments.includes(cb.node_id));
    assert.ok(!disk[1][ref(a.number)].seenComments.includes(ca.node_id));
  } finally {
    await h.close();
  }
});

Deno.test("an idle cycle costs one request per repo, answered 304, and writes nothing", async () => {
  const h = await pollHarness({ repos: [REPO, "octo/other"] });
  try {
    const w = h.gh.world;
    const now = Date.now();
    w.clock = () => now - 3_600_000; // the items changed an hour ago
    for (const repo of [REPO, "octo/other"]) {
      const i = w.addIssue(repo, { labels: [LABEL], user: "alice" });
      w.addComment(repo, i.number, "hi", "alice");
      const p = w.addPull(repo, { labels: [LABEL], user: "alice" });
      w.addReview(repo, p.number, { body: "nice", user: "alice" });
    }
    w.clock = Date.now;
    await h.cycle(); // first sight
    const writes = h.ledger.writes;
    h.gh.clearRequests();
    const report = await h.cycle();
    assert.equal(report.requests, 2);
    assert.equal(report.notModified, 2);
    assert.deepEqual(
      h.gh.requests.map((r) => [r.path, r.status]),
      [[`/repos/${REPO}/issues`, 304], ["/repos/octo/other/issues", 304]],
    );
    assert.equal(h.ledger.writes, writes, "an idle cycle writes nothing");
    const cycle = h.sink.ofType("poll.cycle").at(-1)!;
    assert.equal(cycle.requests, 2);
    assert.equal(cycle.not_modified, 2);
    assert.equal(cycle.items_seen, 4);
  } finally {
    await h.close();
  }
});

Deno.test("a changed thread is read with since= one second before the watermark, so a same-second comment is not lost", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    let t = Date.parse("2026-03-01T10:00:00Z");
    w.clock = () => t;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    const c1 = w.addComment(REPO, issue.number, "one", "alice");
    await h.cycle(); // first sight: c1 baselined
    t += 400; // same second
    const c2 = w.addComment(REPO, issue.number, "two", "alice");
    h.gh.clearRequests();
    await h.cycle();
    const read = h.gh.requests.find((r) => r.path === `/repos/${REPO}/issues/1/comments`);
    assert.equal(read?.query.since, "2026-03-01T09:59:59Z");
    assert.deepEqual(h.dispatcher.events.map((e) => e.subject?.nodeId), [c2.node_id]);
    assert.ok(!h.dispatcher.events.some((e) => e.subject?.nodeId === c1.node_id));
  } finally {
    await h.close();
  }
});

Deno.test("an edit of an old comment is not a new comment", async () => {
  const h = await pollHarness();
  try {
    const w = h.gh.world;
    let t = Date.parse("2026-03-01T10:00:00Z");
    w.clock = () => t;
    const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await h.addSession(ref(1));
    const old = w.addComment(REPO, issue.number, "one", "alice");
    await h.cycle();
    t += 60_000;
    const c2 = w.addComment(REPO, issue.number, "two", "alice");
    await h.cycle();
    t += 60_000;
    w.addComment(REPO, issue.number, "three", "alice");
    await h.cycle(); // `old` is no longer returned: pruned from the seen set
    t += 60_000;
    old.body = "one (edited)";
    old.updated_at = w.now();
    issue.updated_at = w.now();
    await h.cycle();
    const ids = h.dispatcher.events.map((e) => e.subject?.nodeId);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], c2.node_id);
    assert.ok(!ids.includes(old.node_id));
  } finally {
    await h.close();
  }
});

Deno.test("a ledger that is not one stops the poller instead of starting over", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/poll-state.json`;
    await Deno.writeTextFile(path, "{ not json");
    await assert.rejects(
      Ledger.load(path),
      (e) => e instanceof LedgerError && /move it aside/.test(e.message),
    );
    await Deno.writeTextFile(path, JSON.stringify({ version: 99, items: {} }));
    await assert.rejects(
      Ledger.load(path),
      (e) => e instanceof LedgerError && /not a poll ledger of version 1/.test(e.message),
    );
    const missing = await Ledger.load(`${dir}/none.json`);
    assert.deepEqual(missing.refs(), []);
    await missing.flush();
    assert.equal(missing.writes, 0, "an unchanged ledger is not written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
