import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { NOW, testClient, TOKEN } from "./_test_utils.ts";
import { EtagCache, etagCachePath, GitHubClient, GitHubError, SELF_MARKER } from "./mod.ts";

const REPO = "octo/repo";
const LABEL = "the-loop: auto-execute";

async function fake(): Promise<FakeGitHub> {
  const gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addRepo(REPO);
  return gh;
}

Deno.test("a repeated GET is conditional: 304, the cached body, counted", async () => {
  await using fk = await fake();
  fk.world.addIssue(REPO, { labels: [LABEL] });
  const { gh } = testClient(fk.url);
  const first = await gh.listIssues(REPO, { labels: LABEL });
  const remaining = fk.rateLimit.remaining;
  const second = await gh.listIssues(REPO, { labels: LABEL });
  assert.deepEqual(second, first);
  assert.equal(first.length, 1);
  assert.equal(fk.requests.at(-1)!.status, 304);
  assert.ok(fk.requests.at(-1)!.headers["if-none-match"]);
  assert.equal(fk.rateLimit.remaining, remaining, "a 304 costs no rate limit");
  assert.deepEqual(
    { requests: gh.stats().requests, notModified: gh.stats().notModified },
    { requests: 2, notModified: 1 },
  );
  const taken = gh.takeStats();
  assert.equal(taken.requests, 2);
  assert.equal(gh.stats().requests, 0);
});

Deno.test("a change answers 200 again with the new body", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh } = testClient(fk.url);
  assert.equal((await gh.listIssueComments(REPO, issue.number)).length, 0);
  fk.world.addComment(REPO, issue.number, "hello", "alice");
  const after = await gh.listIssueComments(REPO, issue.number);
  assert.equal(after.length, 1);
  assert.equal(after[0].user.login, "alice");
  assert.equal(fk.requests.at(-1)!.status, 200);
  assert.equal(gh.stats().notModified, 0);
});

Deno.test("the ETag cache survives a restart (a new client on the same state root)", async () => {
  await using fk = await fake();
  fk.world.addIssue(REPO, { labels: [LABEL] });
  const root = await Deno.makeTempDir();
  try {
    const one = await GitHubClient.open({ apiUrl: fk.url, token: TOKEN, stateRoot: root });
    const before = await one.listIssues(REPO);
    await one.flush();
    const text = await Deno.readTextFile(etagCachePath(root));
    assert.ok(!text.includes(TOKEN), "the cache file holds no token");
    assert.equal((await Deno.stat(etagCachePath(root))).mode! & 0o777, 0o600);
    const two = await GitHubClient.open({ apiUrl: fk.url, token: TOKEN, stateRoot: root });
    assert.deepEqual(await two.listIssues(REPO), before);
    assert.equal(two.stats().notModified, 1);
    assert.equal(fk.requests.at(-1)!.status, 304);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the ETag cache is bounded (least recently used out) and a broken file starts empty", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "c.json");
    const cache = new EtagCache(path, { maxEntries: 2 });
    cache.set("a", { etag: '"a"', body: 1 });
    cache.set("b", { etag: '"b"', body: 2 });
    cache.get("a");
    cache.set("c", { etag: '"c"', body: 3 });
    assert.equal(cache.size, 2);
    assert.equal(cache.get("b"), undefined);
    await cache.flush();
    assert.equal((await EtagCache.load(path)).size, 2);
    const bytes = new EtagCache(undefined, { maxBytes: 10 });
    bytes.set("x", { etag: '"x"', body: "12345678" });
    bytes.set("y", { etag: '"y"', body: "12345678" });
    assert.deepEqual([bytes.size, bytes.bytes], [1, 10]);
    await Deno.writeTextFile(path, "{not json");
    assert.equal((await EtagCache.load(path)).size, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pagination follows Link rel=next; each page is conditional the second time", async () => {
  await using fk = await fake();
  for (let i = 0; i < 7; i++) fk.world.addIssue(REPO);
  const { gh } = testClient(fk.url);
  const numbers = (await gh.listIssues(REPO, { perPage: 3 })).map((i) => i.number);
  assert.deepEqual(numbers, [7, 6, 5, 4, 3, 2, 1]);
  assert.deepEqual(fk.requests.map((r) => r.query.page ?? "1"), ["1", "2", "3"]);
  const seen: number[] = [];
  for await (
    const i of gh.paginate<{ number: number }>(`/repos/${REPO}/issues`, {
      state: "open",
      per_page: 3,
    })
  ) {
    seen.push(i.number);
  }
  assert.deepEqual(seen, numbers);
  assert.equal(gh.stats().notModified, 3, "all three pages answered 304 from the cache");
});

Deno.test("Retry-After is waited out (an event says how long) and the request succeeds", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, waits, sink } = testClient(fk.url);
  fk.fault({ path: `/repos/${REPO}/issues/${issue.number}`, kind: "rate-limit", retryAfter: 7 });
  assert.equal((await gh.getIssue(REPO, issue.number)).number, issue.number);
  assert.deepEqual(waits, [7000]);
  const [ev] = sink.ofType("github.rate_limited");
  assert.equal(ev.reason, "retry-after");
  assert.equal(ev.wait_ms, 7000);
  assert.equal(ev.status, 403);
  assert.equal(ev.level, "warning");
});

Deno.test("X-RateLimit-Remaining 0 waits until X-RateLimit-Reset (429 too)", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, waits, sink } = testClient(fk.url);
  const reset = NOW / 1000 + 30;
  fk.fault({ path: `/repos/${REPO}/issues/${issue.number}`, kind: "rate-limit", reset });
  fk.fault({
    path: `/repos/${REPO}/issues/${issue.number}`,
    kind: "rate-limit",
    status: 429,
    reset,
  });
  await gh.getIssue(REPO, issue.number);
  assert.deepEqual(waits, [31_000, 31_000]);
  assert.deepEqual(sink.ofType("github.rate_limited").map((e) => e.reason), [
    "rate-limit-reset",
    "rate-limit-reset",
  ]);
  assert.equal(gh.stats().rateLimitWaits, 2);
});

Deno.test("a secondary limit without headers waits a minute, then doubles", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, waits } = testClient(fk.url);
  fk.fault({ path: `/repos/${REPO}/issues/${issue.number}`, kind: "rate-limit", times: 2 });
  await gh.getIssue(REPO, issue.number);
  assert.deepEqual(waits, [60_000, 120_000]);
});

Deno.test("an answer that used up the limit makes the next request wait for the reset", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, waits, sink } = testClient(fk.url);
  fk.rateLimit.remaining = 1;
  fk.rateLimit.reset = NOW / 1000 + 10;
  await gh.getIssue(REPO, issue.number); // answered with remaining 0
  assert.deepEqual(waits, []);
  fk.rateLimit.remaining = 5000;
  await gh.getIssue(REPO, issue.number);
  assert.deepEqual(waits, [11_000]);
  assert.equal(sink.ofType("github.rate_limited")[0].status, null);
});

Deno.test("a 403 that is not a rate limit fails at once", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, waits } = testClient(fk.url);
  fk.fault({
    path: `/repos/${REPO}/issues/${issue.number}`,
    kind: "status",
    status: 403,
    message: "Resource not accessible by integration",
  });
  await assert.rejects(gh.getIssue(REPO, issue.number), (e: GitHubError) => {
    assert.equal(e.status, 403);
    assert.match(e.message, /Resource not accessible/);
    return true;
  });
  assert.deepEqual(waits, []);
});

Deno.test("5xx answers are retried with jittered backoff, then succeed", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, waits, sink } = testClient(fk.url);
  fk.fault({
    path: `/repos/${REPO}/issues/${issue.number}`,
    kind: "status",
    status: 502,
    times: 2,
  });
  assert.equal((await gh.getIssue(REPO, issue.number)).number, issue.number);
  assert.deepEqual(waits, [750, 1500], "base 1 s doubling, times 0.75 (random 0.5)");
  assert.deepEqual(sink.ofType("github.retrying").map((e) => [e.attempt, e.status]), [
    [1, 502],
    [2, 502],
  ]);
  assert.equal(gh.stats().retries, 2);
});

Deno.test("5xx past the attempts fails as a GitHubError naming method, path, status", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh } = testClient(fk.url, { maxAttempts: 3 });
  fk.fault({
    path: `/repos/${REPO}/issues/${issue.number}`,
    kind: "status",
    status: 500,
    times: 5,
  });
  await assert.rejects(gh.getIssue(REPO, issue.number), (e: GitHubError) => {
    assert.ok(e instanceof GitHubError);
    assert.deepEqual([e.kind, e.status, e.method, e.attempts], ["http", 500, "GET", 3]);
    assert.equal(e.path, `/repos/${REPO}/issues/${issue.number}`);
    assert.ok(!e.message.includes(TOKEN));
    return true;
  });
});

Deno.test("a timeout is retried, then the request succeeds", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh, sink } = testClient(fk.url, { timeoutMs: 200 });
  fk.fault({ path: `/repos/${REPO}/issues/${issue.number}`, kind: "delay", ms: 5_000 });
  assert.equal((await gh.getIssue(REPO, issue.number)).number, issue.number);
  assert.match(String(sink.ofType("github.retrying")[0].error), /no answer within 200 ms/);
});

Deno.test("a truncated or non-JSON body is a GitHubError of that request, never a crash", async () => {
  await using fk = await fake();
  const { gh } = testClient(fk.url);
  const path = `/repos/${REPO}/issues`;
  fk.fault({ path, kind: "truncate" });
  await assert.rejects(gh.listIssues(REPO), (e: GitHubError) => {
    assert.equal(e.kind, "bad-body");
    assert.match(e.message, /GitHub GET \/repos\/octo\/repo\/issues/);
    return true;
  });
  fk.fault({ path, kind: "not-json" });
  await assert.rejects(gh.listIssues(REPO), (e: GitHubError) => {
    assert.deepEqual([e.kind, e.status], ["bad-body", 200]);
    assert.match(e.message, /not JSON/);
    return true;
  });
  assert.equal((await gh.listIssues(REPO)).length, 0, "the next request works");
});

Deno.test("the token is in no error: 401, 500, network failure, events", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const bad = testClient(fk.url, { token: `${TOKEN}x` });
  await assert.rejects(bad.gh.getIssue(REPO, issue.number), (e: GitHubError) => {
    assert.equal(e.status, 401);
    assert.match(e.message, /Bad credentials/);
    assert.ok(!e.message.includes(TOKEN));
    return true;
  });
  const { gh, sink } = testClient(fk.url, { maxAttempts: 2 });
  fk.fault({ path: /issues/, kind: "status", status: 500, message: `echo ${TOKEN}`, times: 2 });
  const e500 = await gh.getIssue(REPO, issue.number).catch((e) => e);
  assert.equal(e500.status, 500);
  assert.ok(!e500.message.includes(TOKEN), e500.message);
  const port = new URL(fk.url).port;
  await fk.close();
  const down = testClient(`http://127.0.0.1:${port}`, { maxAttempts: 2 });
  const eNet = await down.gh.getIssue(REPO, 1).catch((e) => e);
  assert.equal(eNet.kind, "network");
  const texts = [e500.message, e500.stack, eNet.message, eNet.stack, JSON.stringify(sink.records)]
    .concat(JSON.stringify(down.sink.records));
  for (const t of texts) assert.ok(!String(t).includes(TOKEN), String(t));
  assert.ok(down.sink.ofType("github.retrying").length === 1);
});

Deno.test("a Link to another origin is refused: the token stays home", async () => {
  await using fk = await fake();
  const { gh } = testClient(fk.url);
  await assert.rejects(gh.get("https://example.com/steal"), /not the API's origin/);
  assert.equal(fk.requests.length, 0);
});

Deno.test("comments carry the self-marker once; reactions and labels go through", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO, { labels: ["a"] });
  const { gh } = testClient(fk.url);
  const c1 = await gh.createComment(REPO, issue.number, "Started.");
  assert.equal(c1.body, `Started.\n\n🤖 _the-loop, autonomous comment_\n${SELF_MARKER}\n`);
  const c2 = await gh.createComment(REPO, issue.number, c1.body);
  assert.equal(c2.body, c1.body, "stamping is idempotent");
  assert.equal(fk.world.item(REPO, issue.number).issue.comments, 2);
  await gh.addReaction({ repo: REPO, comment: c1.id }, "eyes");
  await gh.addReaction({ repo: REPO, comment: c1.id }, "eyes");
  await gh.addReaction({ repo: REPO, issue: issue.number }, "hooray");
  assert.deepEqual(
    fk.world.reactionsOf(fk.world.item(REPO, issue.number).comments[0]).map((r) => r.content),
    ["eyes"],
  );
  const labels = await gh.addLabels(REPO, issue.number, ["b", "a"]);
  assert.deepEqual(labels.map((l) => l.name), ["a", "b"]);
  assert.equal(await gh.removeLabel(REPO, issue.number, "a"), true);
  assert.equal(await gh.removeLabel(REPO, issue.number, "a"), false);
});

Deno.test("a comment POST is not retried after a 5xx (no double post)", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const { gh } = testClient(fk.url);
  fk.fault({ path: `/repos/${REPO}/issues/${issue.number}/comments`, kind: "status", status: 502 });
  await assert.rejects(gh.createComment(REPO, issue.number, "x"), /502/);
  assert.equal(fk.requests.filter((r) => r.method === "POST").length, 1);
});

Deno.test("PR reads: reviews, review comments, permission", async () => {
  await using fk = await fake();
  const pr = fk.world.addPull(REPO, { head: "claude/issue-3" });
  fk.world.addReview(REPO, pr.number, { body: "looks good", state: "APPROVED", user: "bob" });
  fk.world.addReviewComment(REPO, pr.number, { body: "nit", path: "a.ts", line: 3, user: "bob" });
  fk.world.setPermission(REPO, "bob", "write");
  const { gh } = testClient(fk.url);
  assert.equal((await gh.getPull(REPO, pr.number)).head.ref, "claude/issue-3");
  assert.equal((await gh.listReviews(REPO, pr.number))[0].state, "APPROVED");
  const [rc] = await gh.listReviewComments(REPO, pr.number);
  assert.deepEqual([rc.path, rc.line, rc.user.login], ["a.ts", 3, "bob"]);
  assert.equal(await gh.getPermission(REPO, "bob"), "write");
  fk.world.user("eve");
  assert.equal(await gh.getPermission(REPO, "eve"), "none");
});

Deno.test("GraphQL closingIssuesReferences: the issues a PR closes", async () => {
  await using fk = await fake();
  const issue = fk.world.addIssue(REPO);
  const pr = fk.world.addPull(REPO, {
    closes: [{ number: issue.number }, { repo: "o/x", number: 9 }],
  });
  const { gh } = testClient(fk.url);
  assert.deepEqual(await gh.closingIssues(REPO, pr.number), [
    { repo: REPO, number: issue.number },
    { repo: "o/x", number: 9 },
  ]);
  const req = fk.requests.at(-1)!;
  assert.deepEqual([req.method, req.path], ["POST", "/graphql"]);
  await assert.rejects(gh.closingIssues(REPO, 99), (e: GitHubError) => e.kind === "graphql");
});
