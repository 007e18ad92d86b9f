/**
 * `the-loop gh-webhook start|stop`, end to end: the real CLI process against a config whose
 * `github.apiUrl` is the fake GitHub, driven by the webhook deliveries of world changes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeGitHub, signature, type WebhookResult } from "./fake_github/mod.ts";
import { cli, readOutput, spawnCli, tree } from "./_test_utils.ts";

const REPO = "octo/repo";
const SECRET = "e2e-webhook-secret";
const LABEL = "the-loop: auto-execute";
const READY = /^gh-webhook: listening on (http:\/\/127\.0\.0\.1:(\d+)\/gh-webhook) \(pid (\d+)\)$/m;

function config(apiUrl: string, users: string[]): string {
  return `version: "0.1.0"
state:
  root: state
github:
  apiUrl: ${apiUrl}
  tokenEnv: FAKE_GH_TOKEN
webhooks:
  ghWebhook:
    routing:
      enabled: true
      dispatcher: journal # these tests watch the receiver and the router
      authorizedUsers: [${users.join(", ")}]
`;
}

interface Running {
  child: Deno.ChildProcess;
  url: string;
  pid: number;
  /** Everything printed so far (stdout and stderr keep being read). */
  out: { stdout: string; stderr: string };
  /** Waits for the exit; resolves to the code and how long it took from the call. */
  exit(): Promise<{ code: number; ms: number }>;
}

/** Spawns `gh-webhook start --port 0 …` in `dir` and waits for its ready line. */
async function start(dir: string, args: string[] = [], env: Record<string, string> = {}) {
  const child = spawnCli(["gh-webhook", "start", "--port", "0", ...args], {
    cwd: dir,
    env: { FAKE_GH_TOKEN: "t0k", THE_LOOP_GH_WEBHOOK_SECRET: SECRET, ...env },
  });
  const { out, done } = readOutput(child);
  const ready = await waitFor(() => READY.exec(out.stdout), "the ready line", () => out);
  return {
    child,
    url: ready[1],
    pid: Number(ready[3]),
    out,
    async exit() {
      const t = performance.now();
      const status = await child.status;
      await done;
      return { code: status.code, ms: performance.now() - t };
    },
  } satisfies Running;
}

/** Polls `probe` until it returns something truthy; fails only a hung test (20 s). */
async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  context: () => unknown = () => "",
): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(context())}`);
}

async function jsonl(path: string): Promise<Record<string, unknown>[]> {
  try {
    return (await Deno.readTextFile(path)).split("\n").filter((l) => l.trim()).map((l) =>
      JSON.parse(l)
    );
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

function paths(dir: string) {
  const root = join(dir, ".the-loop", "state");
  return {
    config: join(dir, ".the-loop", "cli-config.yaml"),
    pidfile: join(root, "gh-webhook.pid"),
    journal: join(root, "dispatch-journal.jsonl"),
    events: join(root, "logs", "events.jsonl"),
  };
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("start --port 0 says where it listens, serves /health, and SIGTERM ends it at once, pidfile removed", async () => {
  await using gh = await FakeGitHub.start({ token: "t0k" });
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url, ["alice"]) });
  const p = paths(dir);
  const r = await start(dir);
  const port = Number(new URL(r.url).port);
  assert.ok(port > 0 && port !== 8787);
  assert.equal(r.pid, r.child.pid);
  assert.equal((await Deno.readTextFile(p.pidfile)).trim(), String(r.pid));
  const health = await fetch(new URL("/healthz/", r.url));
  assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
  const other = await fetch(new URL("/nope", r.url));
  assert.deepEqual([other.status, await other.json()], [404, { status: "not found" }]);
  r.child.kill("SIGTERM");
  const { code, ms } = await r.exit();
  assert.equal(code, 0, r.out.stderr);
  // the original hung on SIGTERM; idle, this one is gone well within the bound
  assert.ok(ms < 5_000, `exit took ${ms} ms`);
  assert.ok(!(await exists(p.pidfile)), "the pidfile is removed");
  assert.match(r.out.stdout, /gh-webhook: stopped\n$/);
  const events = await jsonl(p.events);
  const started = events.find((e) => e.event === "webhook.started")!;
  assert.deepEqual([started.source, started.url, started.verified], ["gh-webhook", r.url, true]);
  assert.ok(events.some((e) => e.event === "webhook.stopped"));
});

Deno.test("world changes delivered as webhooks are routed once; abuse leaves it up; a config edit applies to the next event", async () => {
  await using gh = await FakeGitHub.start({ token: "t0k" });
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url, ["alice"]) });
  const p = paths(dir);
  const r = await start(dir);
  try {
    const issue = gh.world.addIssue(REPO, { user: "alice", labels: [LABEL] });
    const comment = gh.world.addComment(REPO, issue.number, "the-loop start", "alice");
    const sent = await gh.deliver(r.url, { secret: SECRET });
    assert.deepEqual(sent.map((s) => [s.change.event, s.status, s.body]), [
      ["issues", 202, '{"status":"accepted"}'],
      ["issue_comment", 202, '{"status":"accepted"}'],
    ]);
    const commentId = sent[1].deliveryId;
    const routed = (id: string) => async () =>
      (await jsonl(p.journal)).filter((e) => e.delivery_id === id);
    const inJournal = (id: string) => async () => (await routed(id)()).length > 0;
    await waitFor(inJournal(commentId), "the comment in the journal");
    const [entry] = await routed(commentId)();
    assert.deepEqual([entry.work_item, entry.kind, entry.actor, entry.subject_url], [
      `github:${REPO}#${issue.number}`,
      "comment",
      "alice",
      comment.html_url,
    ]);

    // abuse: an invalid-signature flood, a 30 MB body, a non-JSON body
    const bad: Promise<WebhookResult>[] = [];
    for (let i = 0; i < 100; i++) {
      bad.push(gh.webhook(r.url, "issue_comment", sent[1].change.payload, { secret: `x${i}` }));
    }
    assert.ok((await Promise.all(bad)).every((b) => b.status === 401));
    const big = await fetch(r.url, {
      method: "POST",
      headers: { "x-github-event": "issues", "x-github-delivery": "big" },
      body: new Uint8Array(30_000_000).fill(0x20),
    });
    assert.equal(big.status, 413);
    await big.body?.cancel();
    const junk = "{ not json";
    const notJson = await fetch(r.url, {
      method: "POST",
      headers: { "x-github-event": "issues", "x-hub-signature-256": await signature(SECRET, junk) },
      body: junk,
    });
    assert.deepEqual([notJson.status, await notJson.json()], [400, { status: "invalid payload" }]);

    // the same delivery id again is accepted but routed at most once
    const again = await gh.webhook(r.url, "issue_comment", sent[1].change.payload, {
      secret: SECRET,
      deliveryId: commentId,
    });
    assert.equal(again.status, 202);
    // bob is not (yet) allowed: accepted, dropped by the router
    gh.world.addComment(REPO, issue.number, "from bob, before", "bob");
    const [bobBefore] = await gh.deliver(r.url, { secret: SECRET });
    assert.equal(bobBefore.status, 202);
    // routing runs after the 202: wait until bob's comment was decided before editing the config
    await waitFor(
      async () =>
        (await jsonl(p.events)).some((e) =>
          e.event === "routing.dropped" && e.delivery_id === bobBefore.deliveryId
        ),
      "bob's first comment dropped",
    );

    // the config now allows bob: the next event is routed under it
    await Deno.writeTextFile(p.config, config(gh.url, ["alice", "bob"]));
    gh.world.addComment(REPO, issue.number, "from bob, after", "bob");
    const [bobAfter] = await gh.deliver(r.url, { secret: SECRET });
    assert.equal(bobAfter.status, 202);
    await waitFor(inJournal(bobAfter.deliveryId), "bob's comment in the journal");

    const events = await jsonl(p.events);
    const of = (type: string) => events.filter((e) => e.event === type);
    // routed in the background, several at once: their order in the log is not a contract
    assert.deepEqual(
      of("routing.dropped").map((e) => [e.delivery_id, e.reason]).sort(),
      [[commentId, "duplicate-delivery"], [bobBefore.deliveryId, "unauthorized-actor"]].sort(),
    );
    assert.equal((await routed(commentId)()).length, 1, "routed once");
    assert.equal((await routed(bobBefore.deliveryId)()).length, 0);
    assert.equal(of("config.reloaded").length, 1);
    const rejected = of("webhook.rejected");
    // the flood of 100 is written once a second, each record counting those it left out
    const flood = rejected.filter((e) => e.reason === "invalid-signature");
    assert.ok(flood.length >= 1 && flood.length < 10, `${flood.length} records for 100 refusals`);
    const counted = flood.reduce((n, e) => n + 1 + (e.suppressed as number), 0);
    assert.ok(counted <= 100, `${counted} refusals counted for 100 sent`);
    assert.equal(rejected.filter((e) => e.reason === "invalid-payload").length, 1);
    assert.deepEqual(
      rejected.filter((e) => e.reason === "too-large").map((e) => [e.status, e.delivery_id]),
      [[413, "big"]],
    );
    assert.ok(of("webhook.received").every((e) => e.verified === true));
    assert.ok(!JSON.stringify(events).includes(SECRET));
  } finally {
    r.child.kill("SIGTERM");
    assert.equal((await r.exit()).code, 0, r.out.stderr);
  }
});

Deno.test("a non-JSON body is refused with 400, and a good delivery after it is still routed", async () => {
  await using gh = await FakeGitHub.start({ token: "t0k" });
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url, ["alice"]) });
  const p = paths(dir);
  // no secret: accepted unverified, with a warning
  const r = await start(dir, [], { THE_LOOP_GH_WEBHOOK_SECRET: "" });
  try {
    assert.match(r.out.stderr, /warning: no webhook secret in \$THE_LOOP_GH_WEBHOOK_SECRET/);
    const res = await fetch(r.url, {
      method: "POST",
      headers: { "x-github-event": "issues", "content-type": "application/json" },
      body: "<html>definitely not json",
    });
    assert.deepEqual([res.status, await res.json()], [400, { status: "invalid payload" }]);
    const issue = gh.world.addIssue(REPO, { user: "alice" });
    gh.world.addComment(REPO, issue.number, "hello", "alice");
    const sent = await gh.deliver(r.url);
    assert.deepEqual(sent.map((s) => s.status), [202, 202]);
    await waitFor(
      async () => (await jsonl(p.journal)).some((e) => e.delivery_id === sent[1].deliveryId),
      "the comment in the journal",
    );
    const events = await jsonl(p.events);
    assert.ok(events.some((e) => e.event === "webhook.unverified" && e.level === "warning"));
    const received = events.filter((e) => e.event === "webhook.received");
    assert.deepEqual(received.map((e) => e.verified), [false, false]);
    const invalid = events.find((e) => e.reason === "invalid-payload")!;
    assert.deepEqual([invalid.event, invalid.level, invalid.status], [
      "webhook.rejected",
      "error",
      400,
    ]);
  } finally {
    r.child.kill("SIGINT");
    assert.equal((await r.exit()).code, 0, r.out.stderr);
  }
});

Deno.test("a second receiver on the same pidfile exits 1 naming the first; stop ends the first", async () => {
  await using gh = await FakeGitHub.start({ token: "t0k" });
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url, ["alice"]) });
  const p = paths(dir);
  const r = await start(dir, ["--no-route"]);
  assert.match(r.out.stderr, /--no-route: deliveries are accepted and logged, not routed/);
  const env = { FAKE_GH_TOKEN: "t0k" };
  const second = await cli(["gh-webhook", "start", "--port", "0"], { cwd: dir, env });
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`gh-webhook is already running \\(pid ${r.pid} holds `));
  assert.equal(second.stdout, "");
  assert.equal((await Deno.readTextFile(p.pidfile)).trim(), String(r.pid), "the pidfile is kept");

  // --no-route: accepted and logged, nothing routed
  const issue = gh.world.addIssue(REPO, { user: "alice" });
  gh.world.addComment(REPO, issue.number, "hello", "alice");
  assert.deepEqual((await gh.deliver(r.url, { secret: SECRET })).map((s) => s.status), [202, 202]);

  const stop = await cli(["gh-webhook", "stop", "--timeout", "20"], { cwd: dir, env });
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, `the-loop: gh-webhook stopped (pid ${r.pid})\n`);
  assert.equal((await r.exit()).code, 0, r.out.stderr);
  assert.ok(!(await exists(p.pidfile)));
  assert.deepEqual(await jsonl(p.journal), []);
  const events = await jsonl(p.events);
  assert.equal(events.filter((e) => e.event === "webhook.received").length, 2);
  assert.ok(events.some((e) => e.event === "webhook.blocked" && e.holder_pid === r.pid));

  const again = await cli(["gh-webhook", "stop"], { cwd: dir, env });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /gh-webhook is not running \(no pidfile at .*gh-webhook\.pid\)/);
});

Deno.test("--secret-env naming a variable the agent is handed is refused", async () => {
  const base = config("http://127.0.0.1:9", ["alice"]);
  for (
    const [routing, name] of [
      ["      harnessEnv: {pass: [HOOK_SECRET]}\n", "HOOK_SECRET"],
      ["      agentToken: {env: HOOK_SECRET}\n", "HOOK_SECRET"],
      ["", "LC_HOOK_SECRET"],
    ]
  ) {
    const dir = tree({ ".the-loop/cli-config.yaml": base + routing });
    const r = await cli(["gh-webhook", "start", "--port", "0", "--secret-env", name], {
      cwd: dir,
      env: { FAKE_GH_TOKEN: "t0k", [name]: SECRET },
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--secret-env: ${name} is in the agent's environment`));
    assert.ok(!r.stderr.includes(SECRET));
  }
});
