import assert from "node:assert/strict";
import { FakeGitHub, signature } from "./mod.ts";

const REPO = "octo/repo";

Deno.test("each change of the world is recorded as the webhook GitHub would send", async () => {
  await using gh = await FakeGitHub.start();
  const w = gh.world;
  const issue = w.addIssue(REPO, { user: "alice", labels: ["bug"] });
  const pr = w.addPull(REPO, { user: "bob", head: "issue-1-fix" });
  w.addComment(REPO, issue.number, "the-loop start", "alice");
  w.addComment(REPO, pr.number, "on the PR", "carol");
  w.addReview(REPO, pr.number, { body: "looks good", user: "dave" });
  w.addReview(REPO, pr.number, { body: "draft", state: "PENDING" }); // GitHub sends nothing yet
  w.addReviewComment(REPO, pr.number, { body: "nit", path: "a.ts", line: 3, user: "erin" });
  w.sender = "frank";
  w.addLabels(REPO, issue.number, ["bug", "the-loop: auto-execute"]); // bug: already there
  w.removeLabel(REPO, issue.number, "bug");
  w.removeLabel(REPO, issue.number, "absent");
  w.close(REPO, pr.number, { merged: true });
  w.close(REPO, issue.number);
  w.reopen(REPO, issue.number);
  assert.deepEqual(w.changes.map((c) => `${c.event}.${c.action}`), [
    "issues.opened",
    "pull_request.opened",
    "issue_comment.created",
    "issue_comment.created",
    "pull_request_review.submitted",
    "pull_request_review_comment.created",
    "issues.labeled",
    "issues.unlabeled",
    "pull_request.closed",
    "issues.closed",
    "issues.reopened",
  ]);
  const [opened, prOpened, comment, prComment, review, reviewComment, labeled, unlabeled, merged] =
    w.changes.map((c) => c.payload);
  for (const c of w.changes) {
    assert.equal(c.payload.action, c.action);
    assert.equal(c.payload.repository.full_name, REPO);
    assert.equal(c.payload.repository.html_url, `https://github.com/${REPO}`);
    assert.equal(typeof c.payload.sender.login, "string");
  }
  assert.deepEqual([opened.issue.number, opened.sender.login], [issue.number, "alice"]);
  assert.deepEqual(
    [prOpened.number, prOpened.pull_request.head.ref, prOpened.sender.login],
    [pr.number, "issue-1-fix", "bob"],
  );
  assert.deepEqual([comment.comment.body, comment.comment.user.login], ["the-loop start", "alice"]);
  assert.match(comment.comment.node_id, /^IC_/);
  assert.equal(comment.issue.pull_request, undefined);
  assert.ok(prComment.issue.pull_request.html_url.endsWith(`/pull/${pr.number}`));
  assert.deepEqual([review.review.body, review.review.state, review.pull_request.number], [
    "looks good",
    "COMMENTED",
    pr.number,
  ]);
  assert.deepEqual([reviewComment.comment.path, reviewComment.comment.line], ["a.ts", 3]);
  assert.deepEqual([labeled.label.name, labeled.sender.login], ["the-loop: auto-execute", "frank"]);
  assert.deepEqual(labeled.issue.labels.map((l: { name: string }) => l.name), [
    "bug",
    "the-loop: auto-execute",
  ]);
  assert.equal(unlabeled.label.name, "bug");
  assert.deepEqual([merged.pull_request.merged, merged.pull_request.state], [true, "closed"]);
  // a snapshot: the opened issue's payload still says open after the close
  assert.equal(opened.issue.state, "open");
});

Deno.test("deliver POSTs the pending changes signed, in order, with fresh delivery ids", async () => {
  await using gh = await FakeGitHub.start();
  const got: { event: string; id: string; sig: string; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    got.push({
      event: req.headers.get("x-github-event")!,
      id: req.headers.get("x-github-delivery")!,
      sig: req.headers.get("x-hub-signature-256")!,
      body: await req.text(),
    });
    return new Response(null, { status: 202 });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/gh-webhook`;
    const issue = gh.world.addIssue(REPO);
    gh.world.addComment(REPO, issue.number, "hello");
    const first = await gh.deliver(url, { secret: "s" });
    assert.deepEqual(first.map((r) => [r.status, r.change.event]), [
      [202, "issues"],
      [202, "issue_comment"],
    ]);
    gh.world.close(REPO, issue.number);
    const second = await gh.deliver(url, { secret: "s" });
    assert.deepEqual(second.map((r) => r.change.action), ["closed"]);
    assert.deepEqual(got.map((g) => g.event), ["issues", "issue_comment", "issues"]);
    assert.equal(new Set(got.map((g) => g.id)).size, 3);
    for (const g of got) assert.equal(g.sig, await signature("s", g.body));
    gh.world.addComment(REPO, issue.number, "not sent");
    gh.skipChanges();
    assert.deepEqual(await gh.deliver(url), []);
  } finally {
    await server.shutdown();
  }
});
