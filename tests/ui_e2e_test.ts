/**
 * The status page end to end: `the-loop ui --root` spawned as the real CLI over a state root the
 * real stores wrote (its API, a pause from the page through `sessions pause`'s own code, SIGTERM);
 * and `poll start` serving the page beside the poller (`ui.enabled`, `THE_LOOP_UI_PORT=0`), where
 * the page's approve button decides a gate and its reply box answers the agent's question,
 * through the daemon's control socket, as `the-loop verdict` and `the-loop reply` do.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture } from "../ui/_test_utils.ts";
import { readOutput, spawnCli, stopChild, tree, until } from "./_test_utils.ts";
import { type Daemon, LoopsE2E, QUESTION, startItem, waitFor } from "./_loops_e2e_utils.ts";

const READY = /^ui: the status page is at (http:\/\/127\.0\.0\.1:\d+\/)$/m;
const enc = encodeURIComponent;

/** The page's own CSRF token and a poster that carries it. */
async function pageOf(url: string) {
  const html = await (await fetch(url)).text();
  const csrf = /name="the-loop-csrf" content="([0-9a-f]+)"/.exec(html)![1];
  const origin = new URL(url).origin;
  return {
    state: async () => await (await fetch(`${url}api/v1/state`)).json(),
    post: async (path: string, body: unknown) => {
      const res = await fetch(`${url}api/v1/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin, "x-the-loop-csrf": csrf },
        body: JSON.stringify(body),
      });
      return { status: res.status, ...(await res.json()) };
    },
  };
}

Deno.test("the-loop ui --root serves the state root; a pause from the page is sessions pause", async () => {
  const f = await fixture();
  const child = spawnCli(["ui", "--root", f.root, "--port", "0"], {
    cwd: f.dir,
    env: { THE_LOOP_ACTOR: "alice" },
  });
  const { out, done } = readOutput(child);
  try {
    await until("the ready line", () => READY.test(out.stdout), { detail: () => out.stderr });
    const url = READY.exec(out.stdout)![1];
    const page = await pageOf(url);
    const state = await page.state();
    assert.equal(state.stateRoot, f.root);
    assert.equal(state.items.length, 5);
    assert.equal(state.attention.questions[0].ref, f.ref(1));
    const paused = await page.post(`items/${enc(f.ref(1))}/pause`, {});
    assert.equal(paused.status, 200, paused.message);
    assert.equal(paused.ok, true);
    assert.match(paused.message, /paused github:octo\/demo#1/);
    const registry = f.loaded.config.webhooks.ghWebhook.routing.registryDir;
    const record = JSON.parse(
      await Deno.readTextFile(join(registry, "github-octo-demo-1.json")),
    );
    assert.equal(record.status, "paused");
    // a resume of nothing paused is refused, as the CLI verb refuses it
    const refused = await page.post(`items/${enc(f.ref(3))}/resume`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.message, /nothing to resume/);
    const log = await Deno.readTextFile(f.loaded.config.eventLog.path);
    const events = log.trim().split("\n").map((l) => JSON.parse(l));
    const applied = events.find((e) => e.event === "control.applied");
    assert.deepEqual([applied?.command, applied?.actor], ["pause", "alice"]);
    assert.ok(events.some((e) => e.event === "ui.started" && e.url === url));
    assert.ok(events.some((e) => e.event === "ui.control" && e.action === "pause" && e.ok));
  } finally {
    const status = await stopChild(child);
    await done;
    assert.equal(status.code, 0, out.stderr);
    assert.match(out.stdout, /^ui: stopped$/m);
  }
});

/** The page a daemon prints it serves. */
async function daemonPage(d: Daemon) {
  await until("the page's URL", () => READY.test(d.out.stdout), { detail: () => d.out.stderr });
  return await pageOf(READY.exec(d.out.stdout)![1]);
}

Deno.test("poll start serves the page; its approve button decides the gate (the verdict verb)", async () => {
  const fx = await LoopsE2E.open({ harness: { FAKE_HARNESS_ACT: "1" } });
  fx.env.THE_LOOP_ACTOR = "alice";
  try {
    const d = await fx.poll();
    const page = await daemonPage(d);
    const n = fx.openIssue();
    await d.step();
    await startItem(fx, d, n); // adhoc: the agent's work is done, the item waits at review
    let gate: Record<string, unknown> | undefined;
    await waitFor("the gate on the page", async () => {
      gate = (await page.state()).attention.gates.find((g: { ref: string }) => g.ref === fx.ref(n));
      return gate !== undefined;
    }, () => page.state());
    assert.equal(gate?.node, "review");
    assert.deepEqual(gate?.outcomes, ["approve", "request-changes"]);
    const wrong = await page.post(`items/${enc(fx.ref(n))}/verdict`, { outcome: "ship-it" });
    assert.equal(wrong.status, 409);
    assert.match(wrong.message, /not an outcome of the gate review/);
    const approved = await page.post(`items/${enc(fx.ref(n))}/verdict`, { outcome: "approve" });
    assert.equal(approved.status, 200, approved.message);
    assert.match(approved.message, /review: approve by alice/);
    await waitFor("the item past review", async () => (await fx.position(n))?.node === "done");
    const row = (await page.state()).items.find((r: { ref: string }) => r.ref === fx.ref(n));
    assert.equal(row.phase, "done");
  } finally {
    await fx.close();
  }
});

Deno.test("poll start serves the page; its reply box answers the agent's question", async () => {
  const fx = await LoopsE2E.open({ harness: { FAKE_HARNESS_ASK: QUESTION } });
  fx.env.THE_LOOP_ACTOR = "alice";
  try {
    const d = await fx.poll();
    const page = await daemonPage(d);
    const n = fx.openIssue();
    await d.step();
    const s = await startItem(fx, d, n);
    await waitFor(
      "the question on the page",
      async () => (await page.state()).attention.questions.length > 0,
      () => page.state(),
    );
    const [q] = (await page.state()).attention.questions;
    assert.equal(q.ref, fx.ref(n));
    assert.match(q.question, /Which database should I use\?/);
    const sent = await page.post(`items/${enc(fx.ref(n))}/reply`, { text: "SQLite PAGE-7" });
    assert.equal(sent.status, 200, sent.message);
    const lines = async () =>
      (await fx.harness()).filter((e) => e.event === "input" && e.pid === s.boot.pid)
        .map((e) => e.line ?? "");
    await waitFor(
      "the answer in the session",
      async () => (await lines()).some((l) => l.includes("PAGE-7")),
      lines,
    );
    await waitFor(
      "the question gone from the page",
      async () => (await page.state()).attention.questions.length === 0,
    );
  } finally {
    await fx.close();
  }
});

Deno.test("gh-webhook start with the page's port in use says so and runs on without the page", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const dir = tree({ ".the-loop/cli-config.yaml": 'version: "0.1.0"\n' });
  const child = spawnCli(["gh-webhook", "start", "--port", "0", "--no-route"], {
    cwd: dir,
    env: { THE_LOOP_GH_WEBHOOK_SECRET: "s3cret", THE_LOOP_UI_PORT: String(port) },
  });
  const { out, done } = readOutput(child);
  try {
    await until("the page's failure", () => /runs on without the status page/.test(out.stderr), {
      detail: () => JSON.stringify(out),
    });
    assert.match(out.stderr, new RegExp(`ui: port ${port} on 127\\.0\\.0\\.1 is in use`));
    assert.match(out.stdout, /^gh-webhook: listening on /m);
    assert.doesNotMatch(out.stdout, READY);
    const health = await fetch(/listening on (http:\/\/[^/]+)/.exec(out.stdout)![1] + "/health");
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    const status = await stopChild(child);
    await done;
    taken.close();
    assert.equal(status.code, 0, out.stderr);
  }
  const log = await Deno.readTextFile(join(dir, ".the-loop", "logs", "events.jsonl"));
  assert.ok(log.split("\n").some((l) => l.includes('"event":"ui.failed"')));
});
