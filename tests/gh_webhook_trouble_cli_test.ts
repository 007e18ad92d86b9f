/**
 * Failures an operator sees, on the real `gh-webhook` CLI: a bad token stops
 * `start --route` with the remedy; an event log on a full disk is said on stderr, `/health` answers
 * 503 `{"status":"degraded","reasons":[…]}` and `gh-webhook status` says why; a status file that
 * cannot be written is said too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, cliSchema, readOutput, spawnCli, stopChild, tree, until } from "./_test_utils.ts";

const TOKEN = "t0k-webhook-trouble";
const READY = /gh-webhook: listening on (http:\/\/127\.0\.0\.1:\d+)\/gh-webhook/;

const checkStatus = await cliSchema("gh-webhook-status");

function project(apiUrl: string, extra = ""): string {
  return tree({
    "c/cli-config.yaml": [
      "state: { root: ../state }",
      `github: { apiUrl: "${apiUrl}", tokenEnv: FAKE_GH_TOKEN }`,
      "webhooks: { ghWebhook: { routing: { dispatcher: journal, authorizedUsers: [alice] } } }",
      extra,
      "",
    ].join("\n"),
  });
}

Deno.test("gh-webhook start --route: a bad token is refused at start with the remedy", async () => {
  const gh = await FakeGitHub.start({ token: TOKEN });
  try {
    const dir = project(gh.url);
    const r = await cli([
      "-c",
      "c/cli-config.yaml",
      "gh-webhook",
      "start",
      "--route",
      "--port",
      "0",
    ], {
      cwd: dir,
      env: { FAKE_GH_TOKEN: "wrong" },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /cannot start: GitHub refused the token \(401\): it is wrong, expired or revoked/,
    );
    assert.doesNotMatch(r.stdout, /listening/);
    assert.deepEqual(gh.requests.map((q) => q.path), ["/rate_limit"]);
  } finally {
    await gh.close();
  }
});

Deno.test("gh-webhook start: an event log on a full disk makes /health answer 503 degraded, said on stderr and in gh-webhook status", async () => {
  const gh = await FakeGitHub.start({ token: TOKEN });
  const dir = project(gh.url, "eventLog: { path: /dev/full }");
  const child = spawnCli(
    ["-c", "c/cli-config.yaml", "gh-webhook", "start", "--route", "--port", "0"],
    { cwd: dir, env: { FAKE_GH_TOKEN: TOKEN } },
  );
  const { out, done } = readOutput(child);
  try {
    await until("the ready line", () => READY.test(out.stdout));
    const base = READY.exec(out.stdout)![1];
    let health: { status: number; body: { status: string; reasons?: string[] } } | undefined;
    await until("a degraded /health", async () => {
      const res = await fetch(`${base}/health`);
      health = { status: res.status, body: await res.json() };
      return res.status === 503;
    });
    assert.equal(health!.body.status, "degraded");
    assert.match(
      health!.body.reasons![0],
      /^the event log cannot be written: cannot write the event log \/dev\/full \(/,
    );
    await until("the warning", () => /cannot write the event log \/dev\/full/.test(out.stderr));
    assert.match(out.stderr, /said again every 60 s while it lasts/);
    const status = async () => {
      const r = await cli(["-c", "c/cli-config.yaml", "gh-webhook", "status", "--format", "json"], {
        cwd: dir,
      });
      assert.equal(r.code, 0, r.stderr);
      const doc = JSON.parse(r.stdout);
      checkStatus(doc);
      return doc;
    };
    await until("the status file", async () => (await status()).status?.degraded.length > 0);
    const doc = await status();
    assert.equal(doc.running, true);
    assert.equal(doc.status.url, `${base}/gh-webhook`);
    assert.equal(doc.status.lastError.kind, "event-log");
    assert.match(doc.status.degraded[0], /event log cannot be written/);
    const table = await cli(["-c", "c/cli-config.yaml", "gh-webhook", "status"], { cwd: dir });
    assert.match(table.stdout, /running\s+yes/);
    assert.match(table.stdout, /degraded\s+the event log cannot be written/);
  } finally {
    await stopChild(child, "SIGTERM");
    await done;
    await gh.close();
  }
  // the receiver gone, status says so (liveness is the lock's)
  const after = await cli(["-c", "c/cli-config.yaml", "gh-webhook", "status"], { cwd: dir });
  assert.match(after.stdout, /running\s+no/);
});

Deno.test("gh-webhook start: a status file that cannot be written is said on stderr", async () => {
  const dir = project("http://127.0.0.1:9");
  // the status file's path is a directory holding a file: its rename fails, even as root
  Deno.mkdirSync(join(dir, "state", "gh-webhook-status.json", "in-the-way"), { recursive: true });
  const child = spawnCli(
    ["-c", "c/cli-config.yaml", "gh-webhook", "start", "--no-route", "--port", "0"],
    { cwd: dir, env: {} },
  );
  const { out, done } = readOutput(child);
  try {
    await until("the ready line", () => READY.test(out.stdout));
    await until("the warning", () => /a state file cannot be written/.test(out.stderr));
    assert.match(
      out.stderr,
      /the-loop: warning: a state file cannot be written: free space .* — .*gh-webhook-status\.json/,
    );
    const base = READY.exec(out.stdout)![1];
    await until("a degraded /health", async () => {
      const res = await fetch(`${base}/health`);
      const body = await res.json();
      return res.status === 503 && /state file/.test(body.reasons?.[0] ?? "");
    });
  } finally {
    await stopChild(child, "SIGTERM");
    await done;
  }
});
