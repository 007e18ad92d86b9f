/**
 * `startPoller` in-process, without the CLI: against the fake GitHub with a config in a temp
 * dir, `once` runs one cycle that hands the start keyword to the dispatcher and stops with the
 * lock let go; without `once` it is ready, runs a cycle, refuses a second poller on its pidfile,
 * and `stop()` ends it cleanly.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { lockHolder } from "../daemon/mod.ts";
import { readJournal } from "../dispatch/mod.ts";
import { AwaitedSink } from "../events/_test_utils.ts";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { daemonProject } from "../tests/_test_utils.ts";
import { readStatus } from "./status.ts";
import { startPoller } from "./start.ts";

const TOKEN = "t0k-start-poller";
const LABEL = "the-loop: auto-execute";
const REPO = "octo/repo";

/** A project folder whose config polls `REPO` on `apiUrl`, routing to the journal. */
async function project(apiUrl: string) {
  const p = await daemonProject([
    `github: { apiUrl: "${apiUrl}", tokenEnv: POLLER_TOKEN }`,
    "webhooks:",
    "  ghWebhook:",
    "    routing: { dispatcher: journal, authorizedUsers: [alice] }",
    `polling: { sources: [{ provider: github, repos: [${REPO}] }] }`,
  ], { POLLER_TOKEN: TOKEN });
  return { ...p, journal: join(p.root, "dispatch-journal.jsonl") };
}

Deno.test("startPoller once: one cycle hands the start keyword over, then it stops and lets go", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  const issue = gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
  gh.world.addComment(REPO, issue.number, "the-loop:start-execution", "alice");
  const p = await project(gh.url);
  const events = new AwaitedSink();
  const warned: string[] = [];
  const poller = startPoller({
    loaded: p.loaded,
    env: p.env,
    cwd: p.dir,
    warn: (line) => warned.push(line),
    once: true,
    events,
  });
  const ready = await poller.ready;
  assert.deepEqual(
    { sources: ready.sources, interval: ready.intervalSeconds, pid: ready.pid },
    { sources: 1, interval: 60, pid: Deno.pid },
  );
  assert.equal(ready.pidfile, join(p.root, "poll.pid"));
  const stopped = await poller.stopped;
  assert.deepEqual(stopped, { reason: "once", cycles: 1, failed: [] });
  assert.deepEqual(warned, []);
  const handed = await readJournal(p.journal);
  assert.deepEqual(
    handed.map((e) => [e.work_item, e.kind, e.actor, e.via]),
    [[`github:${REPO}#${issue.number}`, "comment", "alice", "poll"]],
  );
  // the control endpoint listens before the poller says it started
  assert.equal(events.records[0].event, "control.listening");
  const types = events.records.map((r) => r.event).filter((t) => t !== "control.listening");
  assert.equal(types[0], "poll.started");
  assert.equal(types.at(-1), "poll.stopped");
  assert.equal(events.ofType("poll.stopped")[0].reason, "once");
  assert.equal(events.ofType("poll.cycle").length, 1);
  assert.equal((await lockHolder(ready.pidfile)).live, false, "the lock was let go");
  const status = await readStatus(p.root);
  assert.equal(status?.lastCycle?.errors, 0);
  assert.equal(await poller.stop(), stopped, "a stop after the end is the same end");
});

Deno.test("startPoller: ready, a cycle, a second poller refused, then stop() ends it", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" });
  const p = await project(gh.url);
  const events = new AwaitedSink();
  const poller = startPoller({
    loaded: p.loaded,
    env: p.env,
    cwd: p.dir,
    warn: () => {},
    intervalSeconds: 3600,
    events,
  });
  const ready = await poller.ready;
  assert.equal(ready.intervalSeconds, 3600);
  await events.until("poll.cycle");
  assert.equal((await lockHolder(ready.pidfile)).pid, Deno.pid, "it holds its pidfile");

  const blocked = new AwaitedSink();
  const second = startPoller({
    loaded: p.loaded,
    env: p.env,
    cwd: p.dir,
    warn: () => {},
    events: blocked,
  });
  await assert.rejects(second.ready, /a poller is already running \(pid \d+ holds .*poll\.pid\)/);
  await assert.rejects(second.stopped, /already running/);
  assert.equal(blocked.ofType("poller.blocked")[0].holder_pid, Deno.pid);

  const stopped = await poller.stop(); // mid-sleep: the loop ends at once
  assert.deepEqual(stopped, { reason: "signal", cycles: 1, failed: [] });
  assert.equal(events.ofType("poll.stopped")[0].reason, "signal");
  assert.equal((await lockHolder(ready.pidfile)).live, false, "the lock was let go");
});
