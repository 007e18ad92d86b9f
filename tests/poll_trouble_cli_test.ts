/**
 * Failures an operator sees, on the real `poll` CLI against the fake
 * GitHub: a `--once` cycle with errors exits 1 with one line per kind and its remedy, a foreground
 * poller says a kind once (not every cycle), a bad token stops the start, a long rate-limit wait is
 * said with its reset time and kept in the status, and an event log or status file that cannot be
 * written is said and makes the poller degraded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, cliSchema, spawnCli, stopChild, tree, until } from "./_test_utils.ts";

const TOKEN = "t0k-poll-trouble";
const LABEL = "the-loop: auto-execute";
const ENV = { POLL_TOKEN: TOKEN };

const checkStatus = await cliSchema("poll-status");

function project(gh: FakeGitHub, repos: string[], extra: string[] = []): string {
  return tree({
    ".the-loop/cli-config.yaml": [
      `github: { apiUrl: "${gh.url}", tokenEnv: POLL_TOKEN }`,
      "webhooks:",
      "  ghWebhook:",
      "    routing:",
      "      dispatcher: journal",
      "      authorizedUsers: [alice]",
      "polling:",
      "  intervalSeconds: 1",
      "  sources:",
      "    - provider: github",
      `      repos: [${repos.join(", ")}]`,
      ...extra,
      "",
    ].join("\n"),
  });
}

async function withGitHub(body: (gh: FakeGitHub) => Promise<void>): Promise<void> {
  const gh = await FakeGitHub.start({ token: TOKEN });
  try {
    await body(gh);
  } finally {
    await gh.close();
  }
}

/** A stream's text as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let text = "";
  const done = (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  return { text: () => text, done };
}

/** Runs the CLI; a process still running after `ms` is killed and the test fails (no hang). */
async function exitWithin(
  ms: number,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
) {
  const child = spawnCli(args, opts);
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  const { code, signal } = await child.status;
  clearTimeout(timer);
  await Promise.all([out.done, err.done]);
  assert.equal(signal, null, `still running after ${ms} ms: ${out.text()}${err.text()}`);
  return { code, stdout: out.text(), stderr: err.text() };
}

async function statusJson(dir: string, env: Record<string, string> = ENV) {
  const r = await cli(["poll", "status", "--format", "json"], { cwd: dir, env });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  checkStatus(doc);
  return doc;
}

Deno.test("poll start --once: a cycle with a 401, a 404, a cut body and 5xx exits 1, one line per kind with its remedy", async () => {
  await withGitHub(async (gh) => {
    for (const repo of ["octo/revoked", "octo/cut", "octo/down", "octo/fine"]) {
      gh.world.addRepo(repo);
      gh.world.addIssue(repo, { labels: [LABEL], user: "alice" });
    }
    // octo/gone does not exist: 404
    const dir = project(gh, ["octo/revoked", "octo/gone", "octo/cut", "octo/down", "octo/fine"]);
    gh.fault({ path: "/repos/octo/revoked/issues", kind: "status", status: 401, times: 9 });
    gh.fault({ path: "/repos/octo/cut/issues", kind: "truncate", times: 9 });
    gh.fault({ path: "/repos/octo/down/issues", kind: "status", status: 502, times: 9 });
    const r = await cli(["poll", "start", "--once"], { cwd: dir, env: ENV });
    assert.equal(r.code, 1, `a cycle with errors exits 1:\n${r.stdout}\n${r.stderr}`);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("poll: error: "));
    const kinds = [
      /^poll: error: GitHub refused the token \(401\): it is wrong, expired or revoked: make a new one .* — GitHub GET \/repos\/octo\/revoked\/issues/,
      /^poll: error: GitHub does not know the repository or item \(404\): check the repository's name .* — GitHub GET \/repos\/octo\/gone\/issues/,
      /^poll: error: GitHub's answer was cut short or is not JSON: .* — GitHub GET \/repos\/octo\/cut\/issues/,
      /^poll: error: GitHub answered with a server error \(5xx\) after the retries: .*githubstatus.* — GitHub GET \/repos\/octo\/down\/issues.*502/,
    ];
    assert.equal(lines.length, kinds.length, r.stderr);
    for (const k of kinds) assert.ok(lines.some((l) => k.test(l)), `${k} in:\n${r.stderr}`);
    assert.match(
      r.stderr,
      /the cycle had errors \(auth ×1, not-found ×1, bad-body ×1, server ×1\)/,
    );
    assert.doesNotMatch(r.stderr, /t0k-poll-trouble/, "never the token");
    // the status says the last error
    const doc = await statusJson(dir);
    assert.equal(doc.status.lastCycle.errors, 4);
    assert.equal(doc.status.lastError.kind, "server");
    assert.match(doc.status.lastError.message, /octo\/down\/issues\?.*: 502/);
    assert.ok(!Number.isNaN(Date.parse(doc.status.lastError.at)));
    assert.deepEqual(doc.status.degraded, []);
    const table = await cli(["poll", "status"], { cwd: dir, env: ENV });
    assert.match(table.stdout, /last error\s+\S+Z server: GitHub GET \/repos\/octo\/down\/issues/);
    // a clean cycle exits 0 again
    gh.clearFaults();
    const clean = project(gh, ["octo/fine"]);
    assert.equal((await cli(["poll", "start", "--once"], { cwd: clean, env: ENV })).code, 0);
  });
});

Deno.test("poll start: a bad token is refused at start with the remedy, before any cycle", async () => {
  await withGitHub(async (gh) => {
    gh.world.addRepo("octo/repo");
    const dir = project(gh, ["octo/repo"]);
    for (const args of [["poll", "start"], ["poll", "start", "--once"]]) {
      gh.clearRequests();
      const r = await exitWithin(20_000, args, { cwd: dir, env: { POLL_TOKEN: "not-the-token" } });
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /cannot start: GitHub refused the token \(401\): it is wrong, expired or revoked: make a new one and export it in the variable github\.tokenEnv names/,
      );
      assert.doesNotMatch(r.stdout, /poll: started/);
      assert.deepEqual(gh.requests.map((q) => q.path), ["/rate_limit"], "no cycle ran");
      assert.doesNotMatch(r.stderr, /not-the-token/);
    }
  });
});

Deno.test("poll start (foreground): a lasting 404 is said once, not every cycle", async () => {
  await withGitHub(async (gh) => {
    gh.world.addRepo("octo/repo");
    const dir = project(gh, ["octo/gone"]);
    const child = spawnCli(["poll", "start", "--interval", "1"], { cwd: dir, env: ENV });
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    try {
      const lists = () => gh.requests.filter((q) => q.path === "/repos/octo/gone/issues").length;
      await until("three cycles", () => lists() >= 3);
      await until("the warning", () => /GitHub does not know/.test(err.text()));
    } finally {
      await stopChild(child, "SIGTERM");
      await Promise.all([out.done, err.done]);
    }
    const said = err.text().split("\n").filter((l) => /GitHub does not know/.test(l));
    assert.equal(said.length, 1, err.text());
    assert.match(said[0], /^poll: warning: GitHub does not know the repository or item \(404\)/);
  });
});

Deno.test("poll start: a rate-limit wait over 10 s is said with its reset time, and kept in the status", async () => {
  await withGitHub(async (gh) => {
    gh.world.addRepo("octo/repo");
    const dir = project(gh, ["octo/repo"]);
    const reset = Math.floor(Date.now() / 1000) + 3600;
    gh.fault({ path: "/repos/octo/repo/issues", kind: "rate-limit", reset, times: 1 });
    const child = spawnCli(["poll", "start"], { cwd: dir, env: ENV });
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    // GitHub's reset plus the client's margin of a second, as the client's clock sees it
    const near = (iso: string) => Math.abs(Date.parse(iso) - (reset * 1000 + 1000)) < 5_000;
    try {
      await until("the rate-limit line", () => /rate limit is reached/.test(err.text()));
      const said = err.text().match(
        /poll: warning: GitHub's rate limit is reached: waiting (\d+) s, until (\S+) \(rate-limit-reset; GET \/repos\/octo\/repo\/issues/,
      );
      assert.ok(said, err.text());
      assert.ok(Number(said[1]) > 3500 && near(said[2]), said[0]);
      await until("the status", async () => (await statusJson(dir)).status?.rateLimit !== null);
      const doc = await statusJson(dir);
      assert.equal(doc.status.rateLimit.until, said[2]);
      assert.equal(doc.status.rateLimit.reason, "rate-limit-reset");
      assert.ok(doc.status.rateLimit.waitMs > 3_000_000);
      const table = await cli(["poll", "status"], { cwd: dir, env: ENV });
      assert.match(table.stdout, new RegExp(`rate limit\\s+waiting until ${said[2]}`));
    } finally {
      await stopChild(child, "SIGKILL"); // the wait would hold a SIGTERM 10 s
      await Promise.all([out.done, err.done]);
    }
  });
});

Deno.test("poll start: an event log on a full disk and a status file that cannot be written are said, and degrade the poller", async () => {
  await withGitHub(async (gh) => {
    gh.world.addRepo("octo/repo");
    // /dev/full: every write is ENOSPC; a status file that is a directory: its rename fails (root too)
    const dir = project(gh, ["octo/repo"], ["eventLog: { path: /dev/full }"]);
    const statusFile = join(dir, ".the-loop", "poll-status.json");
    Deno.mkdirSync(join(statusFile, "in-the-way"), { recursive: true });
    const r = await cli(["poll", "start", "--once"], { cwd: dir, env: ENV });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /cannot write the event log \/dev\/full \(.*\); events are not being recorded — free space .* \(said again every 60 s while it lasts\)/,
    );
    assert.match(
      r.stderr,
      /poll: error: a state file cannot be written: free space on the state root's disk, or check state\.root and its permissions — .*poll-status\.json/,
    );
    // once the status file can be written, it holds why the poller was degraded
    Deno.removeSync(statusFile, { recursive: true });
    const child = spawnCli(["poll", "start"], { cwd: dir, env: ENV });
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    try {
      await until("the degraded status", async () => {
        const doc = await statusJson(dir);
        return doc.status?.degraded?.some((d: string) => /event log/.test(d)) ?? false;
      }, { detail: () => `the poller's stderr so far:\n${err.text()}` });
      const doc = await statusJson(dir);
      assert.match(
        doc.status.degraded[0],
        /^the event log cannot be written: cannot write the event log \/dev\/full/,
      );
      assert.equal(doc.status.lastError.kind, "event-log");
      const table = await cli(["poll", "status"], { cwd: dir, env: ENV });
      assert.match(table.stdout, /degraded\s+the event log cannot be written/);
    } finally {
      await stopChild(child, "SIGTERM");
      await Promise.all([out.done, err.done]);
    }
  });
});
