/**
 * `startReceiver` in-process, without the CLI: with a config in a temp dir and the fake GitHub
 * behind the router, it is ready with the bound URL, answers a signed delivery 202 and routes it
 * (the journal has the hand-over), refuses a badly signed one, and `stop()` ends it with the lock
 * let go and the status file written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/mod.ts";
import { lockHolder } from "../daemon/mod.ts";
import { readJournal } from "../dispatch/mod.ts";
import { AwaitedSink } from "../events/_test_utils.ts";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { daemonProject } from "../tests/_test_utils.ts";
import { delivery } from "./_test_utils.ts";
import { readWebhookStatus } from "./status.ts";
import { startReceiver } from "./start.ts";

const TOKEN = "t0k-start-receiver";
const SECRET = "s3cret-start-receiver";
const LABEL = "the-loop: auto-execute";
const REPO = "octo/repo";

async function project(apiUrl: string) {
  const p = await daemonProject([
    `github: { apiUrl: "${apiUrl}", tokenEnv: RECEIVER_TOKEN }`,
    "webhooks:",
    "  ghWebhook:",
    "    routing: { enabled: true, dispatcher: journal, authorizedUsers: [alice] }",
  ], { RECEIVER_TOKEN: TOKEN, THE_LOOP_GH_WEBHOOK_SECRET: SECRET });
  return { ...p, journal: join(p.root, "dispatch-journal.jsonl") };
}

Deno.test("startReceiver: ready, a signed delivery answered 202 and routed, stop() ends it", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  const issue = gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
  gh.skipChanges(); // the issue was there before the receiver listened
  const p = await project(gh.url);
  const events = new AwaitedSink();
  const warned: string[] = [];
  const receiver = startReceiver({
    loaded: p.loaded,
    env: p.env,
    cwd: p.dir,
    warn: (line) => warned.push(line),
    port: 0,
    events,
  });
  const ready = await receiver.ready;
  assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+\/gh-webhook$/);
  assert.notEqual(ready.addr.port, 0, "port 0 picked a free one");
  assert.deepEqual([ready.routing, ready.verified, ready.pid], [true, true, Deno.pid]);
  assert.equal((await lockHolder(ready.pidfile)).pid, Deno.pid, "it holds its pidfile");

  gh.world.addComment(REPO, issue.number, "the-loop:start-execution", "alice");
  const [sent] = await gh.deliver(ready.url, { secret: SECRET });
  assert.equal(sent.status, 202, sent.body);
  const routed = await events.until("routing.routed", (r) => r.delivery_id === sent.deliveryId);
  assert.equal(routed.work_item, `github:${REPO}#${issue.number}`);
  const forged = await fetch(await delivery(ready.url, { secret: "not-the-secret" }));
  await forged.body?.cancel();
  assert.equal(forged.status, 401);

  const stopped = await receiver.stop();
  assert.deepEqual(stopped, { reason: "signal", handedBack: [] });
  assert.deepEqual(warned, []);
  const handed = await readJournal(p.journal);
  assert.deepEqual(
    handed.map((e) => [e.delivery_id, e.work_item, e.kind, e.actor, e.via]),
    [[sent.deliveryId, `github:${REPO}#${issue.number}`, "comment", "alice", "gh-webhook"]],
  );
  const types = events.records.map((r) => r.event);
  assert.ok(types.indexOf("webhook.started") < types.indexOf("webhook.stopped"), types.join());
  assert.equal((await lockHolder(ready.pidfile)).live, false, "the lock was let go");
  assert.equal((await readWebhookStatus(p.root))?.url, ready.url);
});

Deno.test("startReceiver: a second receiver on the pidfile is refused; no routing needs no token", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-start-receiver-" }));
  const env = () => undefined; // no token, no secret
  const loaded = await loadConfig({ env, cwd: dir });
  const warned: string[] = [];
  const o = { loaded, env, cwd: dir, port: 0, route: false, events: new AwaitedSink() };
  const first = startReceiver({ ...o, warn: (line) => warned.push(line) });
  const ready = await first.ready;
  assert.equal(ready.routing, false);
  assert.equal(ready.verified, false);
  assert.deepEqual(warned.map((l) => l.replace(/:.*/s, "")), ["the-loop", "the-loop"]);
  assert.match(warned.join("\n"), /no webhook secret in \$THE_LOOP_GH_WEBHOOK_SECRET/);
  assert.match(warned.join("\n"), /--no-route: deliveries are accepted and logged, not routed/);
  const blocked = new AwaitedSink();
  const second = startReceiver({ ...o, events: blocked, warn: () => {} });
  await assert.rejects(second.ready, /gh-webhook is already running \(pid \d+ holds /);
  assert.equal(blocked.ofType("webhook.blocked")[0].holder_pid, Deno.pid);
  assert.deepEqual(await first.stop(), { reason: "signal", handedBack: [] });
});
