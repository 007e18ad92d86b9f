/**
 * `the-loop poll` end to end: the real CLI process against the fake GitHub, with the real router
 * and the interim journal dispatcher — the idle cycle's cost, first sight, hand-overs across
 * restarts, PR kinds and linkage, closures, the lock, stop, status and the dry run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readJournal } from "../dispatch/mod.ts";
import { RegistryDir } from "../state/registry.ts";
import { sessionRecord } from "../poll/_test_utils.ts";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, spawnCli, tree, until } from "./_test_utils.ts";
import { Ajv2020 } from "ajv/dist/2020.js";

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
for (const name of ["envelope", "poll-status"]) {
  ajv.addSchema(
    JSON.parse(await Deno.readTextFile(new URL(`../schema/cli/${name}.json`, import.meta.url))),
  );
}

/** Parses a `poll status --format json` document and checks it against its schema. */
function statusDoc(stdout: string) {
  const doc = JSON.parse(stdout);
  const validate = ajv.getSchema("poll-status.json")!;
  assert.ok(validate(doc), ajv.errorsText(validate.errors));
  return doc;
}

const TOKEN = "t0k-poll-cli";
const LABEL = "the-loop: auto-execute";
const REPO = "octo/repo";
const START = "the-loop:start-execution";
const ENV = { POLL_TOKEN: TOKEN };

function configText(gh: FakeGitHub, opts: { repos?: string[]; interval?: number } = {}): string {
  return [
    `github: { apiUrl: "${gh.url}", tokenEnv: POLL_TOKEN }`,
    "webhooks:",
    "  ghWebhook:",
    "    routing:",
    "      dispatcher: journal # these tests watch the router and the ledger",
    "      authorizedUsers: [alice]",
    "polling:",
    `  intervalSeconds: ${opts.interval ?? 60}`,
    "  sources:",
    "    - provider: github",
    `      repos: [${(opts.repos ?? [REPO]).join(", ")}]`,
    "",
  ].join("\n");
}

interface Project {
  dir: string;
  root: string;
  journal: string;
  ledger: string;
  pidfile: string;
  events: string;
}

function project(gh: FakeGitHub, opts: { repos?: string[]; interval?: number } = {}): Project {
  const dir = tree({ ".the-loop/cli-config.yaml": configText(gh, opts) });
  const root = join(dir, ".the-loop");
  return {
    dir,
    root,
    journal: join(root, "dispatch-journal.jsonl"),
    ledger: join(root, "sessions", "poll-state.json"),
    pidfile: join(root, "poll.pid"),
    events: join(root, "logs", "events.jsonl"),
  };
}

const once = (p: Project, extra: string[] = []) =>
  cli(["poll", "start", "--once", ...extra], { cwd: p.dir, env: ENV });

async function events(p: Project): Promise<Record<string, unknown>[]> {
  try {
    return (await Deno.readTextFile(p.events)).split("\n").filter((l) => l).map((l) =>
      JSON.parse(l)
    );
  } catch {
    return [];
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** A running `poll start`, once it printed its ready line. */
async function daemon(p: Project, extra: string[] = []) {
  const child = spawnCli(["poll", "start", ...extra], { cwd: p.dir, env: ENV });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("poll: started")) {
    const { value, done } = await reader.read();
    if (done) {
      const err = await new Response(child.stderr).text();
      throw new Error(`poll start exited before its ready line: ${out}\n${err}`);
    }
    out += value;
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return out;
      out += value;
    }
  })();
  return { child, ready: out, rest, stderr: new Response(child.stderr).text() };
}

async function withGitHub(body: (gh: FakeGitHub) => Promise<void>): Promise<void> {
  const gh = await FakeGitHub.start({ token: TOKEN });
  try {
    gh.world.addRepo(REPO);
    await body(gh);
  } finally {
    await gh.close();
  }
}

Deno.test("poll start --once: an idle cycle costs one request per repo, answered 304", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const w = gh.world;
    const now = Date.now();
    w.clock = () => now - 3_600_000;
    for (let i = 0; i < 3; i++) {
      const issue = w.addIssue(REPO, { labels: [LABEL], user: "alice" });
      w.addComment(REPO, issue.number, "context", "alice");
    }
    const pr = w.addPull(REPO, { labels: [LABEL], user: "alice" });
    w.addReview(REPO, pr.number, { body: "hm", user: "alice" });
    w.clock = Date.now;
    const first = await once(p);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^poll: started \(pid \d+, every 60s, 1 source\)$/m);
    gh.clearRequests();
    const ledgerBefore = await Deno.readTextFile(p.ledger);
    const second = await once(p);
    assert.equal(second.code, 0, second.stderr);
    // the start's check of the token (free at GitHub), then the cycle: one request, a 304
    assert.deepEqual(gh.requests.map((r) => [r.method, r.path, r.status]), [
      ["GET", "/rate_limit", 200],
      ["GET", `/repos/${REPO}/issues`, 304],
    ]);
    assert.equal(await Deno.readTextFile(p.ledger), ledgerBefore, "the ledger is untouched");
    const cycle = (await events(p)).filter((e) => e.event === "poll.cycle").at(-1)!;
    assert.equal(cycle.requests, 1);
    assert.equal(cycle.not_modified, 1);
    assert.equal(cycle.items_seen, 4);
    assert.ok(!(await exists(p.pidfile)), "the pidfile is removed on the way out");
  });
});

Deno.test("poll start --once: first sight baselines; a new comment is handed over once across restarts", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const issue = gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    gh.world.addComment(REPO, issue.number, "old context", "alice");
    assert.equal((await once(p)).code, 0);
    assert.deepEqual(await readJournal(p.journal), [], "nothing forwarded, no start yet");
    const c = gh.world.addComment(REPO, issue.number, `${START} please`, "alice");
    assert.equal((await once(p)).code, 0);
    assert.equal((await once(p)).code, 0);
    const journal = await readJournal(p.journal);
    const comments = journal.filter((j) => j.kind === "comment");
    assert.deepEqual(comments.map((j) => [j.delivery_id, j.work_item, j.actor, j.command]), [
      [`poll-comment-${c.node_id}`, `github:${REPO}#1`, "alice", "start"],
    ]);
    // the start is recorded: the cycle after it asks for a session (presence)
    assert.deepEqual(journal.filter((j) => j.kind === "presence").map((j) => j.work_item), [
      `github:${REPO}#1`,
    ]);
  });
});

Deno.test("poll start --once: a PR's review and inline comment go over once each, to the issue it closes", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const w = gh.world;
    const issue = w.addIssue(REPO, { user: "alice" });
    const pr = w.addPull(REPO, {
      labels: [LABEL],
      user: "alice",
      closes: [{ number: issue.number }],
    });
    await new RegistryDir(join(p.root, "sessions")).write(
      sessionRecord(`github:${REPO}#${issue.number}`),
    );
    assert.equal((await once(p)).code, 0);
    const review = w.addReview(REPO, pr.number, { body: "needs a test", user: "alice" });
    const inline = w.addReviewComment(REPO, pr.number, {
      body: "typo",
      path: "a.ts",
      line: 3,
      user: "alice",
    });
    assert.equal((await once(p)).code, 0);
    assert.equal((await once(p)).code, 0);
    const journal = await readJournal(p.journal);
    assert.deepEqual(journal.map((j) => [j.kind, j.delivery_id, j.work_item]), [
      ["review", `poll-comment-${review.node_id}`, `github:${REPO}#${issue.number}`],
      ["review_comment", `poll-comment-${inline.node_id}`, `github:${REPO}#${issue.number}`],
    ]);
  });
});

Deno.test("poll start --once: a closed item closes its session; a failed listing closes nothing", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const issue = gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    await new RegistryDir(join(p.root, "sessions")).write(sessionRecord(`github:${REPO}#1`));
    assert.equal((await once(p)).code, 0);
    gh.world.close(REPO, issue.number);
    gh.fault({ path: `/repos/${REPO}/issues`, kind: "status", status: 404, times: 1 });
    const failed = await once(p);
    assert.equal(failed.code, 1, "a cycle with errors exits 1");
    assert.match(failed.stderr, /poll: error: GitHub does not know the repository or item \(404\)/);
    assert.deepEqual(await readJournal(p.journal), []);
    const closing = await once(p);
    assert.equal(closing.code, 0);
    assert.doesNotMatch(closing.stderr, /skipping/, "the ledger is not taken for a session file");
    const journal = await readJournal(p.journal);
    assert.deepEqual(journal.map((j) => [j.kind, j.delivery_id]), [
      ["close", `poll-close-github:${REPO}#1-closed`],
    ]);
    const detected = (await events(p)).filter((e) => e.event === "poll.closure_detected");
    assert.deepEqual(detected.map((e) => [e.work_item, e.state]), [[`github:${REPO}#1`, "closed"]]);
  });
});

Deno.test("poll start: a second poller is refused naming the holder; poll status and poll stop", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const d = await daemon(p);
    try {
      const pid = d.child.pid;
      await until("the first cycle", async () => await exists(join(p.root, "poll-status.json")));
      const second = await once(p);
      assert.equal(second.code, 1);
      assert.match(second.stderr, new RegExp(`pid ${pid}`));
      assert.ok(
        (await events(p)).some((e) => e.event === "poller.blocked" && e.holder_pid === pid),
      );
      const table = await cli(["poll", "status"], { cwd: p.dir, env: ENV });
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, new RegExp(`running\\s+yes \\(pid ${pid}\\)`));
      assert.match(table.stdout, /requests\s+1 \(0 answered 304\)/);
      const json = await cli(["poll", "status", "--format", "json"], { cwd: p.dir, env: ENV });
      const doc = statusDoc(json.stdout);
      assert.equal(doc.command, "poll status");
      assert.equal(doc.running, true);
      assert.equal(doc.pid, pid);
      assert.equal(doc.status.intervalSeconds, 60);
      assert.equal(doc.status.lastCycle.itemsSeen, 0);
      assert.equal("pid" in doc.status, false, "the status file holds no pid");
      const stop = await cli(["poll", "stop"], { cwd: p.dir, env: ENV });
      assert.equal(stop.code, 0, stop.stderr);
      assert.match(stop.stdout, new RegExp(`stopped \\(pid ${pid}\\)`));
      const status = await d.child.status;
      assert.equal(status.code, 0);
      assert.match(await d.rest, /poll: stopped/);
      assert.ok(!(await exists(p.pidfile)));
      const after = await cli(["poll", "status", "--format", "json"], { cwd: p.dir, env: ENV });
      assert.equal(statusDoc(after.stdout).running, false);
      const again = await cli(["poll", "stop"], { cwd: p.dir, env: ENV });
      assert.equal(again.code, 1, "no poller: stop exits 1");
      assert.match(again.stderr, /not running/);
    } finally {
      try {
        d.child.kill("SIGKILL");
      } catch { /* gone */ }
      await d.child.status;
      await d.stderr;
    }
  });
});

Deno.test("poll start: a pidfile left by a SIGKILLed poller does not block a start", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const d = await daemon(p);
    d.child.kill("SIGKILL");
    await d.child.status;
    await d.rest;
    await d.stderr;
    assert.ok(await exists(p.pidfile), "the killed poller left its pidfile");
    const status = await cli(["poll", "status"], { cwd: p.dir, env: ENV });
    assert.match(status.stdout, /running\s+no/);
    const r = await once(p);
    assert.equal(r.code, 0, r.stderr);
    // a stale pidfile: stop signals nobody, removes it, and exits 1
    const d2 = await daemon(p);
    d2.child.kill("SIGKILL");
    await d2.child.status;
    await d2.rest;
    await d2.stderr;
    const stop = await cli(["poll", "stop"], { cwd: p.dir, env: ENV });
    assert.equal(stop.code, 1);
    assert.match(stop.stderr, /left by a process that is gone/);
    assert.ok(!(await exists(p.pidfile)));
  });
});

Deno.test("poll start: an edited config is picked up on the next cycle; a broken edit is refused once", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh, { interval: 1 });
    gh.world.addRepo("octo/other");
    const d = await daemon(p);
    try {
      const config = join(p.root, "cli-config.yaml");
      await Deno.writeTextFile(
        config,
        configText(gh, { interval: 1, repos: [REPO, "octo/other"] }),
      );
      await until(
        "the new source to be listed",
        () => gh.requests.some((r) => r.path === "/repos/octo/other/issues"),
      );
      assert.ok((await events(p)).some((e) => e.event === "config.reloaded"));
      await Deno.writeTextFile(config, "polling: [broken\n");
      await until(
        "the refusal",
        async () => (await events(p)).some((e) => e.event === "config.reload_failed"),
      );
      const cycles = (await events(p)).filter((e) => e.event === "poll.cycle").length;
      await until(
        "two more cycles",
        async () => (await events(p)).filter((e) => e.event === "poll.cycle").length >= cycles + 2,
      );
      assert.equal((await events(p)).filter((e) => e.event === "config.reload_failed").length, 1);
      assert.ok(gh.requests.filter((r) => r.path === "/repos/octo/other/issues").length >= 2);
    } finally {
      d.child.kill("SIGTERM");
      assert.equal((await d.child.status).code, 0);
      await d.rest;
      await d.stderr;
    }
  });
});

Deno.test("poll start --dry-run reads GitHub, writes nothing, and prints what it would hand over", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const issue = gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
    gh.world.addComment(REPO, issue.number, START, "alice");
    const r = await once(p, ["--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /nothing was written/);
    assert.match(r.stdout, /github:octo\/repo#1\s+comment\s+alice\s+control keyword/);
    const json = await once(p, ["--dry-run", "--format", "json"]);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.command, "poll start");
    assert.deepEqual(doc.handovers.map((h: { kind: string }) => h.kind), ["comment"]);
    assert.ok(!gh.requests.some((q) => q.method === "POST" && !q.path.endsWith("/graphql")));
    for (const f of [p.ledger, p.journal, p.events, p.pidfile, join(p.root, "github-etags.json")]) {
      assert.ok(!(await exists(f)), `${f} was written`);
    }
    assert.ok(!(await exists(join(p.root, "sessions", "control"))));
  });
});

Deno.test("poll start without a token names the three ways to give one", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    const r = await cli(["poll", "start", "--once"], {
      cwd: p.dir,
      env: { PATH: "/nonexistent" },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no GitHub token found/);
    assert.match(r.stderr, /POLL_TOKEN/);
  });
});

Deno.test("poll start refuses a bad --interval, and --format json without --dry-run, as usage errors", async () => {
  await withGitHub(async (gh) => {
    const p = project(gh);
    for (const args of [["--interval", "0"], ["--interval", "sixty"], ["--format", "json"]]) {
      const r = await cli(["poll", "start", "--once", ...args], { cwd: p.dir, env: ENV });
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    }
    assert.ok(!(await exists(p.pidfile)));
  });
});
