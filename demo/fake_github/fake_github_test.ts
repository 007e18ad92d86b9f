import assert from "node:assert/strict";
import { FakeGitHub, signature } from "./mod.ts";

const REPO = "octo/repo";
const get = async (fk: FakeGitHub, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(fk.url + path, { headers: { authorization: "Bearer t", ...headers } });
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : null };
};

Deno.test("payloads are shaped like GitHub's: ids, node_id, html_url, user.login, labels, pull_request", async () => {
  await using fk = await FakeGitHub.start({ token: "t" });
  const issue = fk.world.addIssue(REPO, { labels: ["bug"], user: "alice" });
  const pr = fk.world.addPull(REPO, { head: "issue-1" });
  const { body: list } = await get(fk, `/repos/${REPO}/issues`);
  assert.deepEqual(list.map((i: { number: number }) => i.number), [pr.number, issue.number]);
  const [p, i] = list;
  assert.equal(typeof i.id, "number");
  assert.match(i.node_id, /^I_/);
  assert.equal(i.html_url, `https://github.com/${REPO}/issues/${issue.number}`);
  assert.equal(i.user.login, "alice");
  assert.deepEqual(i.labels.map((l: { name: string }) => l.name), ["bug"]);
  assert.match(i.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(i.pull_request, undefined);
  assert.ok(p.pull_request.html_url.endsWith(`/pull/${pr.number}`));
  const { body: pull } = await get(fk, `/repos/${REPO}/pulls/${pr.number}`);
  assert.deepEqual([pull.head.ref, pull.merged], ["issue-1", false]);
});

Deno.test("world helpers bump updated_at and the comment count like GitHub", async () => {
  await using fk = await FakeGitHub.start();
  let t = Date.UTC(2026, 0, 1, 10);
  fk.world.clock = () => t;
  const issue = fk.world.addIssue(REPO);
  assert.equal(issue.updated_at, "2026-01-01T10:00:00Z");
  t += 61_500;
  const c = fk.world.addComment(REPO, issue.number, "hi", "bob");
  assert.equal(issue.comments, 1);
  assert.equal(issue.updated_at, "2026-01-01T10:01:01Z");
  assert.match(c.node_id, /^IC_/);
  t += 1000;
  fk.world.close(REPO, issue.number);
  assert.deepEqual([issue.state, issue.closed_at], ["closed", "2026-01-01T10:01:02Z"]);
});

Deno.test("listing filters by state, labels and since, and pages with Link", async () => {
  await using fk = await FakeGitHub.start();
  let t = Date.UTC(2026, 0, 1);
  fk.world.clock = () => t;
  for (let n = 0; n < 5; n++) {
    fk.world.addIssue(REPO, { labels: n % 2 ? ["go"] : [] });
    t += 1000;
  }
  fk.world.close(REPO, 1);
  assert.deepEqual((await get(fk, `/repos/${REPO}/issues?labels=go`)).body.length, 2);
  assert.deepEqual((await get(fk, `/repos/${REPO}/issues?state=closed`)).body.length, 1);
  const since = (await get(fk, `/repos/${REPO}/issues?since=2026-01-01T00:00:03Z`)).body;
  assert.deepEqual(since.map((i: { number: number }) => i.number), [5, 4]);
  const first = await get(fk, `/repos/${REPO}/issues?per_page=2&state=all`);
  assert.match(first.res.headers.get("link")!, /page=2>; rel="next".*page=3>; rel="last"/);
});

Deno.test("every GET has an ETag; If-None-Match answers 304 and costs no rate limit", async () => {
  await using fk = await FakeGitHub.start();
  const issue = fk.world.addIssue(REPO);
  const a = await get(fk, `/repos/${REPO}/issues/${issue.number}`);
  const etag = a.res.headers.get("etag")!;
  assert.ok(etag);
  const left = fk.rateLimit.remaining;
  const b = await get(fk, `/repos/${REPO}/issues/${issue.number}`, { "if-none-match": etag });
  assert.equal(b.res.status, 304);
  assert.equal(fk.rateLimit.remaining, left);
  fk.world.addComment(REPO, issue.number, "x");
  const c = await get(fk, `/repos/${REPO}/issues/${issue.number}`, { "if-none-match": etag });
  assert.equal(c.res.status, 200);
  assert.equal(fk.rateLimit.remaining, left - 1);
});

Deno.test("faults: a status for the next N requests, rate limits with headers, then normal", async () => {
  await using fk = await FakeGitHub.start();
  fk.world.addRepo(REPO);
  const path = `/repos/${REPO}/issues`;
  fk.fault({ path, kind: "status", status: 404, times: 2 });
  fk.fault({ path, kind: "rate-limit", status: 429, retryAfter: 3 });
  assert.equal((await get(fk, path)).res.status, 404);
  assert.equal((await get(fk, path)).res.status, 404);
  const limited = await get(fk, path);
  assert.deepEqual([limited.res.status, limited.res.headers.get("retry-after")], [429, "3"]);
  assert.equal((await get(fk, path)).res.status, 200);
  assert.equal((await get(fk, "/nope")).res.status, 404);
});

Deno.test("the fake records every request, without the authorization header; a wrong token is 401", async () => {
  await using fk = await FakeGitHub.start({ token: "right" });
  fk.world.addRepo(REPO);
  const res = await fetch(`${fk.url}/repos/${REPO}/issues?state=all`, {
    headers: { authorization: "Bearer wrong", "x-extra": "1" },
  });
  assert.equal(res.status, 401);
  await res.body?.cancel();
  const [r] = fk.requests;
  assert.deepEqual([r.method, r.path, r.query, r.status], ["GET", `/repos/${REPO}/issues`, {
    state: "all",
  }, 401]);
  assert.equal(r.headers["x-extra"], "1");
  assert.equal(r.headers.authorization, undefined);
});

Deno.test("webhook() POSTs a signed delivery a receiver can verify", async () => {
  await using fk = await FakeGitHub.start();
  const got: { event: string | null; id: string | null; ok: boolean }[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const body = await req.text();
      const ok = req.headers.get("x-hub-signature-256") === await signature("s3cret", body);
      got.push({
        event: req.headers.get("x-github-event"),
        id: req.headers.get("x-github-delivery"),
        ok,
      });
      return new Response(null, { status: ok ? 202 : 401 });
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}/webhook`;
  const issue = fk.world.addIssue(REPO);
  const comment = fk.world.addComment(REPO, issue.number, "start", "alice");
  const payload = { action: "created", issue, comment, repository: fk.world.repo(REPO).payload };
  const r = await fk.webhook(url, "issue_comment", payload, {
    secret: "s3cret",
    deliveryId: "d-1",
  });
  assert.equal(r.status, 202);
  const bad = await fk.webhook(url, "issue_comment", payload, { secret: "other" });
  assert.equal(bad.status, 401);
  assert.deepEqual(got[0], { event: "issue_comment", id: "d-1", ok: true });
  // the documented example: HMAC-SHA256("It's a Secret to Everybody", "Hello, World!")
  assert.equal(
    await signature("It's a Secret to Everybody", "Hello, World!"),
    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
  );
});
