import assert from "node:assert/strict";
import { GitHubError } from "../github/mod.ts";
import {
  DEGRADED_EVERY_MS,
  failureKindOf,
  FAILURES,
  longRateWait,
  Trouble,
  WARN_EVERY_MS,
} from "./trouble.ts";

const http = (status: number, detail = "x") =>
  new GitHubError({ kind: "http", method: "GET", path: "/repos/o/r/issues", status, detail });

Deno.test("failureKindOf names each GitHub failure's kind; every kind has a remedy", () => {
  assert.equal(failureKindOf(http(401, "Bad credentials")), "auth");
  assert.equal(failureKindOf(http(403, "Resource not accessible by integration")), "forbidden");
  assert.equal(
    failureKindOf(http(403, "Resource protected by organization SAML enforcement.")),
    "sso",
  );
  assert.equal(failureKindOf(http(404, "Not Found")), "not-found");
  assert.equal(failureKindOf(http(403, "still rate limited after 100 waits: x")), "rate-limited");
  assert.equal(failureKindOf(http(502, "Bad Gateway")), "server");
  assert.equal(failureKindOf(http(422, "Validation Failed")), "request");
  for (const kind of ["network", "timeout", "bad-body", "graphql"] as const) {
    const e = new GitHubError({ kind, method: "GET", path: "/x", detail: "d" });
    assert.equal(failureKindOf(e), kind);
  }
  assert.equal(failureKindOf(new Error("boom")), "other");
  for (const [kind, info] of Object.entries(FAILURES)) {
    assert.ok(info.summary && info.remedy.length > 20, `${kind} says what to do`);
  }
  assert.match(FAILURES.auth.summary, /^GitHub refused the token \(401\)$/);
});

Deno.test("Trouble says a kind at most once per 10 minutes (an injected clock, no sleep)", () => {
  let now = Date.parse("2026-12-02T12:00:00Z");
  const lines: string[] = [];
  let changes = 0;
  const t = new Trouble({
    prefix: "poll: warning",
    warn: (l) => lines.push(l),
    now: () => now,
    onChange: () => changes++,
  });
  assert.equal(t.failed("server", "GitHub GET /x: 502"), true);
  assert.equal(t.failed("server", "GitHub GET /y: 503"), false, "the same kind: quiet");
  assert.equal(t.failed("auth", "GitHub GET /x: 401 Bad credentials"), true, "another kind");
  now += WARN_EVERY_MS - 1;
  assert.equal(t.failed("server", "GitHub GET /z: 500"), false);
  now += 1;
  assert.equal(t.failed("server", "GitHub GET /z: 500"), true, "10 minutes on: said again");
  assert.deepEqual(lines.map((l) => l.split(":").slice(0, 3).join(":")), [
    "poll: warning: GitHub answered with a server error (5xx) after the retries",
    "poll: warning: GitHub refused the token (401)",
    "poll: warning: GitHub answered with a server error (5xx) after the retries",
  ]);
  assert.match(lines[1], /make a new one .* — GitHub GET \/x: 401 Bad credentials$/);
  assert.deepEqual(t.lastError, {
    kind: "server",
    message: "GitHub GET /z: 500",
    at: new Date(now).toISOString(),
  });
  assert.equal(changes, 5);
});

Deno.test("Trouble's degraded reasons: said every minute while they last, cleared on recovery", () => {
  let now = 0;
  const lines: string[] = [];
  let changes = 0;
  const t = new Trouble({
    prefix: "gh-webhook: warning",
    warn: (l) => lines.push(l),
    now: () => now,
    onChange: () => changes++,
  });
  t.degrade("status", "state-write", "/s/status.json: Is a directory");
  t.degrade("status", "state-write", "/s/status.json: Is a directory");
  assert.equal(lines.length, 1);
  assert.equal(changes, 1, "a key degraded again is no change");
  assert.deepEqual(t.reasons, ["a state file cannot be written: /s/status.json: Is a directory"]);
  now += DEGRADED_EVERY_MS;
  t.degrade("status", "state-write", "/s/status.json: Is a directory");
  assert.equal(lines.length, 2, "said again a minute later: not once");
  t.degrade("log", "event-log", "cannot write /dev/full", { say: false });
  assert.equal(lines.length, 2);
  assert.equal(t.reasons.length, 2);
  t.degrade("status", "state-write", undefined);
  t.degrade("log", "event-log", undefined);
  assert.deepEqual(t.reasons, []);
  assert.equal(t.lastError?.kind, "event-log");
});

Deno.test("longRateWait: a wait over 10 s is told with its reset time; a short one is not", () => {
  const now = Date.parse("2026-12-02T12:00:00Z");
  assert.equal(longRateWait({ wait_ms: 10_000 }, now), undefined);
  const long = longRateWait({
    method: "GET",
    path: "/repos/o/r/issues",
    reason: "rate-limit-reset",
    wait_ms: 42_000,
    until: "2026-12-02T12:00:42.000Z",
  }, now)!;
  assert.deepEqual(long.wait, {
    at: "2026-12-02T12:00:00.000Z",
    until: "2026-12-02T12:00:42.000Z",
    waitMs: 42_000,
    reason: "rate-limit-reset",
  });
  assert.match(long.line, /waiting 42 s, until 2026-12-02T12:00:42\.000Z \(rate-limit-reset;/);
});
