/**
 * Parked operations through the dispatcher, with the real hook runner: an `onError: suspend`
 * hook that breaks parks the operation (record, comment, `hooks.suspended`), later events of
 * the item are held in order (others are not), and a resume replays them — the parked chain
 * going on from the hook that failed. A stop or a close discards the park.
 */
import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { type Entry, refuserOf, Runner, suspensionOf } from "../lifecycle/mod.ts";
import { entryOf, fakeExecutor } from "../lifecycle/_test_utils.ts";
import type { PointName } from "../lifecycle/sdk/mod.ts";
import { closeEvent, comment, presence, type Setup, setup } from "./_test_utils.ts";
import { until } from "../tests/_test_utils.ts";
import type { SuspensionRecord } from "./suspensions/mod.ts";

const START = "the-loop:start-execution";
const RESUME = "the-loop:resume-execution";
const STOP = "the-loop:stop-execution";
const REF = "github:octo/repo#1";

/** A hook that fails while `failing` says so, and a second one after it that always passes. */
function rig(o: {
  point: PointName;
  mode?: "wait_for_resume" | "wait_then_retry";
  failing: (ref: string) => boolean;
  timeoutMinutes?: number;
}) {
  const sink = new MemorySink();
  const flaky = fakeExecutor("flaky", (_point, params) => {
    if (o.failing((params.work_item as { ref: string }).ref)) {
      throw new Error("the licence server is down");
    }
    return { answer: null };
  }, { on: [o.point] });
  const after = fakeExecutor("after", () => ({ answer: null }), { on: [o.point] });
  const entry: Entry = {
    ...entryOf("flaky"),
    onError: "suspend",
    suspendMode: o.mode ?? "wait_for_resume",
    ...(o.timeoutMinutes !== undefined ? { suspendTimeoutMinutes: o.timeoutMinutes } : {}),
  };
  const runner = new Runner({
    entries: [{ entry, executor: flaky }, { entry: entryOf("after"), executor: after }],
    sink,
  });
  const hooks = {
    run: runner.run.bind(runner),
    refuserOf,
    suspensionOf,
    redact: (t: string) => t,
  };
  return { sink, flaky, after, hooks };
}

async function record(t: Setup): Promise<SuspensionRecord | undefined> {
  return await t.suspensions!.ofItem(REF);
}

/** Waits until the item's suspension file is gone (its replays done). */
async function replayedAll(t: Setup): Promise<void> {
  await until("the replays", async () => (await record(t)) === undefined, {
    ms: 10_000,
    detail: () =>
      JSON.stringify(t.events.records.map((r) => r.event)) +
      Deno.readDirSync(t.suspensions!.dir).map((e) =>
        e.name + Deno.readTextFileSync(t.suspensions!.dir + "/" + e.name)
      ).toArray().join(" "),
  });
  await t.dispatcher.idle();
}

Deno.test("work_item_start parks: record, one comment, events held in order, resume spawns once and delivers them", async () => {
  let failing = true;
  const r = rig({ point: "work_item_start", failing: (ref) => failing && ref === REF });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
    status: "settled",
    reason: "suspended",
  });
  assert.equal(t.runner.calls.length, 0, "nothing spawned");
  const rec = (await record(t))!;
  assert.equal(rec.point, "work_item_start");
  assert.equal(rec.hook, "flaky");
  assert.equal(rec.mode, "wait_for_resume");
  assert.match(rec.error, /licence server is down/);
  assert.equal(rec.held.length, 1);
  assert.equal(r.after.calls.length, 0, "the chain stopped at the failing hook");
  assert.equal(t.github.comments.length, 1);
  const body = t.github.comments[0].body;
  assert.match(body, /suspended the start of this work item \(`work_item_start`\)/);
  assert.match(body, /`flaky` failed: .*licence server is down/);
  assert.ok(body.includes(`the-loop hooks resume ${rec.id}`), body);
  assert.ok(body.includes(RESUME), body);
  assert.equal(t.events.ofType("hooks.suspended")[0].id, rec.id);

  // two comments meanwhile: held, on disk, in order; another item is not held back
  for (const text of ["first note", "second note"]) {
    assert.deepEqual(await t.dispatcher.dispatch(comment(1, text)), {
      status: "settled",
      reason: "held",
    });
  }
  assert.deepEqual((await record(t))!.held.map((h) => h.event.text), [
    START,
    "first note",
    "second note",
  ]);
  assert.equal((await t.dispatcher.dispatch(comment(2, START))).status, "delivered");
  // the poller's presence nudge is not kept (the parked start spawns on resume)
  assert.deepEqual(await t.dispatcher.dispatch(presence(1)), { status: "settled", reason: "held" });
  assert.equal((await record(t))!.held.length, 3);
  assert.equal(t.runner.calls.filter((c) => c.ref === "github:octo/repo#2").length, 1);

  // resumed by an authorized comment: the start goes on after `flaky` (not run again)
  failing = false;
  const calls = r.flaky.calls.length;
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, RESUME)), {
    status: "settled",
    reason: "command",
  });
  await replayedAll(t);
  const mine = t.runner.calls.filter((c) => c.ref === REF);
  assert.deepEqual(mine.map((c) => c.op), ["spawn", "deliver", "deliver"]);
  assert.match(mine[1].prompt!, /first note/);
  assert.match(mine[2].prompt!, /second note/);
  assert.equal(r.flaky.calls.length, calls, "wait_for_resume: the failing hook is not run again");
  assert.equal(
    r.after.calls.filter((c) => (c.params.work_item as { ref: string }).ref === REF).length,
    1,
    "the hooks after it ran on resume",
  );
  assert.equal(t.events.ofType("hooks.resumed")[0].by, "alice");
  assert.ok(t.github.comments.some((c) => c.body.startsWith("▶️")));
});

Deno.test("wait_then_retry: the hook runs once more on resume; a second failure refuses", async () => {
  const r = rig({ point: "work_item_start", mode: "wait_then_retry", failing: () => true });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal((await record(t))!.mode, "wait_then_retry");
  await t.dispatcher.dispatch(comment(1, RESUME));
  await replayedAll(t);
  assert.equal(r.flaky.calls.length, 2, "called once more");
  assert.equal(t.runner.calls.length, 0, "refused, not spawned");
  assert.ok(
    t.github.comments.some((c) => c.body.startsWith("⚠️ the-loop did not start: flaky:")),
    JSON.stringify(t.github.comments),
  );
  assert.equal(await record(t), undefined, "no second park");
});

Deno.test("wait_then_retry: a passing retry goes on with its answer", async () => {
  let failing = true;
  const r = rig({ point: "work_item_start", mode: "wait_then_retry", failing: () => failing });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  failing = false;
  await t.dispatcher.dispatch(comment(1, RESUME));
  await replayedAll(t);
  assert.equal(r.flaky.calls.length, 2);
  assert.deepEqual(t.runner.calls.map((c) => c.op), ["spawn"]);
});

Deno.test("a stop keyword discards the suspension and its held events (one event each)", async () => {
  const r = rig({ point: "work_item_start", failing: () => true });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, "a note"));
  const id = (await record(t))!.id;
  await t.dispatcher.dispatch(comment(1, STOP));
  assert.equal(await record(t), undefined);
  const discarded = t.events.ofType("hooks.suspension_discarded");
  assert.deepEqual(discarded.map((e) => [e.id, e.reason, e.held_delivery_id === null]), [
    [id, "stop", false],
    [id, "stop", false],
    [id, "stop", true],
  ]);
  assert.equal(t.runner.calls.length, 0);
  // and later events are not held any more
  const after = await t.dispatcher.dispatch(comment(1, "after the stop"));
  assert.ok(!(after.status === "settled" && after.reason === "held"), JSON.stringify(after));
});

Deno.test("a close discards the suspension and closes as it would", async () => {
  const r = rig({ point: "work_item_start", failing: () => true });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(closeEvent(1));
  assert.equal(await record(t), undefined);
  assert.equal(t.events.ofType("hooks.suspension_discarded").at(-1)?.reason, "close");
});

Deno.test("input_received parks a comment into a live session; resume delivers it with the rewrite of the hooks before", async () => {
  let failing = false;
  const r = rig({ point: "input_received", failing: () => failing });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  failing = true;
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "please fix")), {
    status: "settled",
    reason: "suspended",
  });
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "and this")), {
    status: "settled",
    reason: "held",
  });
  failing = false;
  await t.dispatcher.dispatch(comment(1, RESUME));
  await replayedAll(t);
  const delivered = t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
  assert.equal(delivered.length, 2, JSON.stringify(delivered));
  assert.match(delivered[0], /please fix/);
  assert.match(delivered[1], /and this/);
});

Deno.test("a record outlives its dispatcher: a new one keeps holding, and replays a resume made without it", async () => {
  const r = rig({ point: "work_item_start", failing: () => true });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, "held note"));
  const rec = (await record(t))!;
  // another dispatcher (a restart) over the same record
  const r2 = rig({ point: "work_item_start", failing: () => false });
  await using u = await setup({ hooks: r2.hooks, suspensions: true });
  await u.suspensions!.put(rec);
  assert.equal(await u.dispatcher.recover(), 0, "not resumed: nothing to replay");
  assert.deepEqual(await u.dispatcher.dispatch(comment(1, "after the restart")), {
    status: "settled",
    reason: "held",
  });
  // `hooks resume` with no daemon marks the record; the next start replays it first
  const held = (await u.suspensions!.ofItem(REF))!;
  await u.suspensions!.put({ ...held, resumed: { at: new Date().toISOString(), by: "operator" } });
  assert.equal(await u.dispatcher.recover(), 1);
  await until("the replays", async () => (await u.suspensions!.ofItem(REF)) === undefined, 10_000);
  await u.dispatcher.idle();
  assert.deepEqual(u.runner.calls.map((c) => c.op), ["spawn", "deliver", "deliver"]);
  assert.match(u.runner.calls[1].prompt!, /held note/);
  assert.match(u.runner.calls[2].prompt!, /after the restart/);
  assert.equal(r2.flaky.calls.length, 0, "not run again");
  assert.equal(r2.after.calls.length, 1, "the chain went on after it");
});

Deno.test("suspendTimeoutMinutes escalates once, never resumes", async () => {
  const r = rig({ point: "work_item_start", failing: () => true, timeoutMinutes: 30 });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  const rec = (await record(t))!;
  const since = Date.parse(rec.since);
  assert.deepEqual(await t.dispatcher.escalate(new Date(since + 29 * 60_000)), []);
  assert.equal((await t.dispatcher.escalate(new Date(since + 30 * 60_000))).length, 1);
  assert.equal((await t.dispatcher.escalate(new Date(since + 90 * 60_000))).length, 0, "once");
  const [e] = t.events.ofType("hooks.suspension_escalated");
  assert.deepEqual([e.id, e.minutes, e.hook], [rec.id, 30, "flaky"]);
  assert.equal((await record(t))!.resumed, undefined, "still suspended");
  assert.equal(t.runner.calls.length, 0);
});

Deno.test("a refusing suspend hook refuses: a refusal is an answer, not a failure", async () => {
  const sink = new MemorySink();
  const refusing = fakeExecutor("flaky", () => ({
    answer: { proceed: false, reason: "not today" },
  }), { on: ["work_item_start"] });
  const runner = new Runner({
    entries: [{
      entry: { ...entryOf("flaky"), onError: "suspend", suspendMode: "wait_for_resume" },
      executor: refusing,
    }],
    sink,
  });
  await using t = await setup({
    hooks: { run: runner.run.bind(runner), refuserOf, suspensionOf },
    suspensions: true,
  });
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
    status: "settled",
    reason: "hook-refused",
  });
  assert.equal(await record(t), undefined);
});

Deno.test("the comment names the hook and its failure, never the hook's local target", async () => {
  const { publicError } = await import("./turn/mod.ts");
  assert.equal(
    publicError(
      'hook "licence" (/home/op/.the-loop/hooks/gate.py): exited with code 1: down',
      "licence",
    ),
    "exited with code 1: down",
  );
  assert.equal(
    publicError("the licence server is down\n  at x.ts:1", "licence"),
    "the licence server is down",
  );
});

Deno.test("the daemon told of a resume by id resumes it even when the mark on disk was lost", async () => {
  let failing = true;
  const r = rig({ point: "work_item_start", failing: () => failing });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  const rec = (await record(t))!;
  failing = false;
  // a wrong id resumes nothing
  const wrong = await t.dispatcher.act(
    { verb: "resumed", ref: REF, suspension: "github-octo-repo-1-s00000000", by: "op" },
    { via: "gh-webhook" },
  );
  assert.equal(wrong.exit, 0);
  assert.ok((await record(t))!.resumed === undefined);
  const told = await t.dispatcher.act(
    { verb: "resumed", ref: REF, suspension: rec.id, by: "op" },
    { via: "gh-webhook" },
  );
  assert.equal(told.exit, 0);
  assert.match(told.message, new RegExp(`${rec.id} resumed: 1 held delivery follows`));
  await replayedAll(t);
  assert.deepEqual(t.runner.calls.map((c) => c.op), ["spawn"]);
  assert.equal(t.events.ofType("hooks.resumed")[0].by, "op");
});

Deno.test("an event that arrives while the resume is under way goes after the held ones", async () => {
  let failing = true;
  const r = rig({ point: "work_item_start", failing: () => failing });
  await using t = await setup({ hooks: r.hooks, suspensions: true });
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, "held: FIX-1"));
  failing = false;
  // both queued at once: the later comment waits behind the resume's turn, which queues the
  // held deliveries ahead of it
  const [resumed, later] = await Promise.all([
    t.dispatcher.dispatch(comment(1, RESUME)),
    t.dispatcher.dispatch(comment(1, "later: FIX-2")),
  ]);
  assert.deepEqual(resumed, { status: "settled", reason: "command" });
  assert.equal(later.status, "delivered");
  await replayedAll(t);
  const mine = t.runner.calls.map((c) => `${c.op}${c.prompt?.match(/FIX-\d/)?.[0] ?? ""}`);
  assert.deepEqual(mine, ["spawn", "deliverFIX-1", "deliverFIX-2"]);
});
