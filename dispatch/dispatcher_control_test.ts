import assert from "node:assert/strict";
import { ciEvent, comment, itemEvent, presence, setup, types } from "./_test_utils.ts";

const START = "Please the-loop:start-execution now.";
const REF = "github:octo/repo#1";

Deno.test("a labelled item's comments wait for a start, settled awaiting-start and never replayed", async () => {
  await using t = await setup();
  const out = await t.dispatcher.dispatch(comment(1, "can you look at this?"));
  assert.deepEqual(out, { status: "settled", reason: "awaiting-start" });
  const [dropped] = t.events.ofType("dispatch.dropped");
  assert.equal(dropped.reason, "awaiting-start");
  assert.equal(dropped.work_item, REF);
  assert.equal(t.runner.calls.length, 0);
  assert.equal(t.github.reactions.length, 0);
  // the start spawns; the earlier comment is not replayed into the new session
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`]);
  assert.doesNotMatch(t.runner.calls[0].prompt!, /can you look at this/);
});

Deno.test("a start spawns a session on the work-on skill, registered, announced, and not forwarded", async () => {
  await using t = await setup();
  const ev = comment(1, START);
  assert.deepEqual(await t.dispatcher.dispatch(ev), { status: "delivered", detail: "spawned" });
  const [spawn] = t.runner.calls;
  assert.equal(spawn.op, "spawn");
  assert.equal(spawn.resume, false);
  assert.match(spawn.prompt!, /Run `\/the-loop:work-on github:octo\/repo#1`/);
  assert.match(spawn.prompt!, /UNTRUSTED/);
  assert.equal(spawn.harnessSessionId, "00000000-0000-4000-8000-000000000001");
  const live = await t.sessions.live(REF);
  assert.equal(live?.status, "active");
  assert.equal(live?.harnessSessionId, "00000000-0000-4000-8000-000000000001");
  assert.equal(live?.tmuxTarget, "loop-github-octo-repo-1");
  assert.deepEqual(live?.recentDeliveries, [ev.deliveryId]);
  assert.deepEqual(
    types(t.events).filter((e) => e.startsWith("session.")),
    ["session.registered", "session.spawned", "session.announced"],
  );
  const [spawned] = t.events.ofType("session.spawned");
  assert.deepEqual(
    [spawned.harness, spawned.runner, spawned.tmux_target, spawned.gh_event, spawned.delivery_id],
    ["claude", "tmux", "loop-github-octo-repo-1", "issue_comment", ev.deliveryId],
  );
  assert.equal(t.github.comments.length, 1);
  assert.match(t.github.comments[0].body, /tmux attach -t loop-github-octo-repo-1/);
  assert.equal((await t.controlStore.get(REF))?.command, "start");
  assert.deepEqual(t.github.contents(), ["eyes", "hooray"]);
  assert.deepEqual(t.github.reactions[0].target, { repo: "octo/repo", comment: ev.subject!.id });
});

Deno.test("every later comment reaches the same session once; a repeated delivery id is settled", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const ev = comment(1, "The tests fail on main, see the log.");
  assert.deepEqual(await t.dispatcher.dispatch(ev), { status: "delivered", detail: "delivered" });
  const deliver = t.runner.calls[1];
  assert.equal(deliver.op, "deliver");
  assert.match(deliver.prompt!, /The tests fail on main, see the log\./);
  assert.match(deliver.prompt!, /A new event arrived on the work item/);
  const reactions = t.github.reactions.length;
  assert.deepEqual(await t.dispatcher.dispatch(ev), {
    status: "settled",
    reason: "duplicate-delivery",
  });
  assert.equal(t.runner.calls.length, 2);
  assert.equal(t.github.reactions.length, reactions, "no reaction for a duplicate");
  assert.deepEqual((await t.sessions.live(REF))?.recentDeliveries.slice(-1), [ev.deliveryId]);
});

Deno.test("a start on an item that is not armed is refused and remembers nothing", async () => {
  await using t = await setup();
  const out = await t.dispatcher.dispatch(comment(1, START, { labeled: false }));
  assert.deepEqual(out, { status: "settled", reason: "not-armed" });
  const [rejected] = t.events.ofType("control.rejected");
  assert.equal(rejected.reason, "spawn-policy");
  assert.equal(await t.controlStore.get(REF), undefined);
  // labelling it afterwards does not start it
  assert.equal((await t.dispatcher.dispatch(itemEvent(1))).status, "settled");
  assert.equal(t.runner.calls.length, 0);
});

Deno.test("two different keywords do nothing and forward nothing", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  const out = await t.dispatcher.dispatch(
    comment(1, "the-loop:pause-execution, no wait, the-loop:stop-execution"),
  );
  assert.deepEqual(out, { status: "settled", reason: "ambiguous" });
  const [amb] = t.events.ofType("control.ambiguous");
  assert.deepEqual([amb.work_items, amb.actor, amb.commands], [[REF], "alice", ["stop", "pause"]]);
  assert.equal(t.runner.calls.length, 1);
  assert.equal((await t.sessions.live(REF))?.status, "active");
});

Deno.test("pause holds events (dropped, not replayed), resume lets them through", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the-loop:pause-execution")), {
    status: "settled",
    reason: "command",
  });
  assert.equal((await t.sessions.live(REF))?.status, "paused");
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "held")), {
    status: "settled",
    reason: "session-paused",
  });
  assert.deepEqual(await t.dispatcher.dispatch(ciEvent(1)), {
    status: "settled",
    reason: "session-paused",
  });
  await t.dispatcher.dispatch(comment(1, "the-loop:resume-execution"));
  assert.equal((await t.sessions.live(REF))?.status, "active");
  await t.dispatcher.dispatch(comment(1, "after the resume"));
  const delivered = t.runner.calls.filter((c) => c.op === "deliver");
  assert.equal(delivered.length, 1, "the held comment is not replayed");
  assert.match(delivered[0].prompt!, /after the resume/);
  assert.doesNotMatch(delivered[0].prompt!, /pause-execution|held/);
});

Deno.test("stop closes the session, ends its harness and disarms the item", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, "the-loop:stop-execution"));
  assert.equal(await t.sessions.live(REF), undefined);
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`, `close ${REF}`]);
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "anyone there?")), {
    status: "settled",
    reason: "awaiting-start",
  });
});

Deno.test("with control disabled, or a keyword emptied, the keyword is a plain comment", async () => {
  await using t = await setup({ routing: (r) => (r.control.keywords.stop = "") });
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, "the-loop:stop-execution please"));
  assert.match(t.runner.calls[1].prompt!, /the-loop:stop-execution please/);
  assert.equal((await t.sessions.live(REF))?.status, "active");
  t.routing.control.enabled = false;
  await t.dispatcher.dispatch(comment(1, "the-loop:pause-execution"));
  assert.equal(t.runner.calls[2].op, "deliver");
  assert.equal((await t.sessions.live(REF))?.status, "active");
});

Deno.test("spawnOnUnmatched: never drops with spawn-policy; always spawns an unlabelled start", async () => {
  await using t = await setup({ routing: (r) => (r.spawnOnUnmatched = "never") });
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "hello")), {
    status: "settled",
    reason: "spawn-policy",
  });
  assert.equal(t.events.ofType("dispatch.dropped")[0].reason, "spawn-policy");
  t.routing.spawnOnUnmatched = "always";
  assert.equal(
    (await t.dispatcher.dispatch(comment(2, "hello", { labeled: false }))).status,
    "settled",
  );
  assert.equal(
    (await t.dispatcher.dispatch(comment(2, START, { labeled: false }))).status,
    "delivered",
  );
  assert.deepEqual(t.runner.ops(), ["spawn github:octo/repo#2"]);
});

Deno.test("requireStartCommand: false spawns on the label, and the label alone arms", async () => {
  await using t = await setup({ routing: (r) => (r.control.requireStartCommand = false) });
  assert.deepEqual(await t.dispatcher.dispatch(itemEvent(1)), {
    status: "delivered",
    detail: "spawned",
  });
  assert.match(t.runner.calls[0].prompt!, /\/the-loop:work-on github:octo\/repo#1/);
  assert.deepEqual(await t.dispatcher.dispatch(itemEvent(2, { labeled: false })), {
    status: "settled",
    reason: "spawn-policy",
  });
});

Deno.test("an accepted start is durable: a later event spawns without a second start", async () => {
  await using t = await setup();
  t.runner.gate = (call) => {
    if (call.op === "spawn") throw new Error("tmux: no server");
  };
  const out = await t.dispatcher.dispatch(comment(1, START));
  assert.equal(out.status, "failed");
  assert.equal(out.status === "failed" && out.retry, true);
  assert.deepEqual(t.github.contents(), ["eyes", "confused"]);
  assert.equal(t.events.ofType("dispatch.failed")[0].will_retry, true);
  // a new dispatcher over the same files (a restart)
  await using again = await setup({ routing: (r) => (r.registryDir = t.registryDir) });
  assert.equal((await again.dispatcher.dispatch(comment(1, "go on"))).status, "delivered");
  assert.deepEqual(again.runner.ops(), [`spawn ${REF}`]);
  assert.match(again.runner.calls[0].prompt!, /go on/);
  assert.ok(!again.hooks.points().includes("work_item_start"), "asked once per arming");
});

Deno.test("presence spawns an armed, started item; item and CI events never spawn a started one", async () => {
  await using t = await setup();
  assert.deepEqual(await t.dispatcher.dispatch(presence(1)), {
    status: "settled",
    reason: "awaiting-start",
  });
  await t.control.apply("start", comment(1, "").workItem, {
    source: "cli",
    actor: "alice",
    note: "cli",
  });
  assert.deepEqual(await t.dispatcher.dispatch(ciEvent(1)), {
    status: "settled",
    reason: "no-session",
  });
  assert.deepEqual(await t.dispatcher.dispatch(itemEvent(1)), {
    status: "settled",
    reason: "no-session",
  });
  assert.equal((await t.dispatcher.dispatch(presence(1))).status, "delivered");
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`]);
  assert.deepEqual(await t.dispatcher.dispatch(presence(1)), {
    status: "settled",
    reason: "session-exists",
  });
});

Deno.test("CI and item events reach a live session as event prompts", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal((await t.dispatcher.dispatch(ciEvent(1))).status, "delivered");
  assert.match(t.runner.calls[1].prompt!, /conclusion: failure/);
  // a pull request's push (`issues` has no `synchronize`: routing.deliver leaves it out)
  const sync = { ...itemEvent(1, { action: "synchronize" }), ghEvent: "pull_request" };
  assert.equal((await t.dispatcher.dispatch(sync)).status, "delivered");
  assert.match(t.runner.calls[2].prompt!, /pull_request synchronize/);
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 1);
});

Deno.test("a dead harness is relaunched on the event's prompt, resuming its conversation", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  t.runner.isAlive = false;
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "still there?")), {
    status: "delivered",
    detail: "respawned",
  });
  const relaunch = t.runner.calls[1];
  assert.deepEqual([relaunch.op, relaunch.resume], ["spawn", true]);
  assert.match(relaunch.prompt!, /still there\?/);
  assert.deepEqual(
    t.hooks.seen.filter((s) => s.point === "session_spawn").map((s) => s.ctx.respawn),
    [
      false,
      true,
    ],
  );
  assert.equal(t.events.ofType("session.respawned")[0].resumed, true);
  assert.equal(t.github.comments.length, 1, "a respawn announces nothing");
});

Deno.test("with tmux.resumeOnRespawn off, a dead harness is relaunched on a fresh conversation", async () => {
  await using t = await setup({ routing: (r) => r.tmux.resumeOnRespawn = false });
  await t.dispatcher.dispatch(comment(1, START));
  t.runner.isAlive = false;
  assert.equal((await t.dispatcher.dispatch(comment(1, "still there?"))).status, "delivered");
  assert.deepEqual([t.runner.calls[1].op, t.runner.calls[1].resume], ["spawn", false]);
  assert.equal(t.events.ofType("session.respawned")[0].resumed, false);
});
