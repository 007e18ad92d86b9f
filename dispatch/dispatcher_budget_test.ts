/**
 * Budgets that pause, not kill, through the dispatcher (a real registry and suspensions store,
 * the fake runner): the loop guard stops a ping-pong, a run's reported cost pauses the item, the
 * deliveries an hour and the launches a day are bounded, a resume grants one more window and the
 * held events go in, in order. The counters are in the session's record.
 */
import assert from "node:assert/strict";
import { comment, type Setup, setup } from "./_test_utils.ts";
import { until } from "../tests/_test_utils.ts";
import { RegistryDir } from "../state/registry.ts";
import type { SuspensionRecord } from "./suspensions/mod.ts";

const START = "the-loop:start-execution";
const RESUME = "the-loop:resume-execution";
const REF = "github:octo/repo#1";
const BOT = "pingpong[bot]";

async function record(t: Setup): Promise<SuspensionRecord | undefined> {
  return await t.suspensions!.ofItem(REF);
}

/** Waits until the pause's record is gone (its held deliveries replayed). */
async function replayedAll(t: Setup): Promise<void> {
  await until("the replays", async () => (await record(t)) === undefined, { ms: 10_000 });
  await t.dispatcher.idle();
}

const delivered = (t: Setup) =>
  t.runner.calls.filter((c) => c.ref === REF && c.op === "deliver").map((c) => c.prompt!);

Deno.test("a bot and a person ping-ponging: paused past the loop guard, one comment, held until an authorized resume, then in order", async () => {
  await using t = await setup({ suspensions: true });
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  const outcomes = [];
  for (let i = 0; i < 40; i++) {
    const actor = i % 2 === 0 ? BOT : "alice";
    outcomes.push(await t.dispatcher.dispatch(comment(1, `ping ${i}`, { actor })));
  }
  // alice's start counted: her 15th reply is her 16th word in the window (maxPerWindow 15)
  const stopped = outcomes.findIndex((o) => o.status !== "delivered");
  assert.equal(stopped, 29);
  assert.deepEqual(outcomes[29], { status: "settled", reason: "budget-exceeded" });
  assert.ok(outcomes.slice(30).every((o) => o.status === "settled" && o.reason === "held"));
  assert.equal(delivered(t).length, 29, "nothing past the limit went in");
  const exceeded = t.events.ofType("budget.exceeded");
  assert.equal(exceeded.length, 1);
  assert.equal(exceeded[0].budget, "loop-guard");
  assert.equal(exceeded[0].who, "alice");
  assert.equal(exceeded[0].used, 15);
  assert.equal(exceeded[0].limit, 15);
  const pauses = t.github.comments.filter((c) => c.body.startsWith("⏸️"));
  assert.equal(pauses.length, 1, "one comment");
  assert.match(pauses[0].body, /loop guard: alice wrote 15 comments or reviews/);
  assert.ok(pauses[0].body.includes(RESUME), pauses[0].body);
  assert.ok(pauses[0].body.includes(`the-loop sessions resume ${REF}`), pauses[0].body);
  assert.equal((await t.sessions.live(REF))!.status, "paused", "paused, never killed");
  assert.equal(t.runner.calls.filter((c) => c.op === "close").length, 0);
  assert.deepEqual(
    (await record(t))!.held.map((h) => h.event.text),
    Array.from({ length: 11 }, (_, i) => `ping ${29 + i}`),
  );

  // an authorized resume: one more window, and the held comments go in, in order
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, RESUME, { actor: "carol" })), {
    status: "settled",
    reason: "command",
  });
  await replayedAll(t);
  const after = delivered(t).slice(29);
  assert.deepEqual(
    after.map((p) => [...p.matchAll(/ping (\d+)/g)].map((m) => Number(m[1]))).flat(),
    Array.from({ length: 11 }, (_, i) => 29 + i),
  );
  const live = (await t.sessions.live(REF))!;
  assert.equal(live.status, "active");
  assert.equal(live.usage!.grants, 1);
  assert.ok(
    t.github.comments.some((c) => /^▶️ .*paused by the loop guard.*one more window/.test(c.body)),
  );
  assert.equal(
    (await t.dispatcher.dispatch(comment(1, "and on", { actor: BOT }))).status,
    "delivered",
  );
});

Deno.test("a headless run whose reported cost reaches costUsd pauses the item; later events are held; the caps come from what is left", async () => {
  await using t = await setup({
    suspensions: true,
    runner: "process",
    routing: (r) => (r.budgets.costUsd = 1),
  });
  t.runner.usage = { costUsd: 0.4, tokens: 1200, turns: 2 };
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.deepEqual(t.runner.calls[0].limits, { maxBudgetUsd: 1 });
  assert.equal((await t.dispatcher.dispatch(comment(1, "one"))).status, "delivered");
  assert.deepEqual(t.runner.calls[1].limits, { maxBudgetUsd: 0.6 });
  // the third run takes it to $1.20: it was delivered, and it was the last
  assert.equal((await t.dispatcher.dispatch(comment(1, "two"))).status, "delivered");
  const exceeded = t.events.ofType("budget.exceeded");
  assert.equal(exceeded.length, 1);
  assert.equal(exceeded[0].budget, "costUsd");
  assert.equal(exceeded[0].used, 1.2);
  assert.equal((await t.sessions.live(REF))!.status, "paused");
  assert.match(t.github.comments.find((c) => c.body.startsWith("⏸️"))!.body, /\$1\.20 of \$1\.00/);
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "three")), {
    status: "settled",
    reason: "held",
  });
  assert.equal(delivered(t).length, 2);
  // durable: the record's usage sums what the runs reported
  const usage = (await new RegistryDir(t.registryDir).get(REF))!.usage!;
  assert.equal(usage.costUsd, 1.2);
  assert.equal(usage.tokens, 3600);
  assert.equal(usage.turns, 6);
  assert.equal(usage.runs, 3);

  assert.equal((await t.dispatcher.dispatch(comment(1, RESUME))).status, "settled");
  await replayedAll(t);
  assert.match(delivered(t).at(-1)!, /three/);
  assert.deepEqual(
    t.runner.calls.at(-1)!.limits,
    { maxBudgetUsd: 1 },
    "a new window: the whole budget",
  );
});

Deno.test("deliveriesPerHour: the spawn is the first delivery; the one past the limit is held; the counts survive a restart", async () => {
  const budget = (r: Setup["routing"]) => (r.budgets.deliveriesPerHour = 3);
  await using t = await setup({ suspensions: true, routing: budget });
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal((await t.dispatcher.dispatch(comment(1, "a"))).status, "delivered");
  const usage = (await new RegistryDir(t.registryDir).get(REF))!.usage!;
  assert.equal(usage.delivered, 2);
  assert.deepEqual(usage.authors, { alice: [[usage.deliveries[0][0], 2]] });

  // a restart: a new dispatcher over the same files goes on from the record's counts
  await using u = await setup({
    suspensions: true,
    routing: (r) => {
      budget(r);
      r.registryDir = t.registryDir;
    },
  });
  assert.equal((await u.dispatcher.dispatch(comment(1, "b"))).status, "delivered");
  assert.deepEqual(await u.dispatcher.dispatch(comment(1, "c")), {
    status: "settled",
    reason: "budget-exceeded",
  });
  assert.equal(u.events.ofType("budget.exceeded")[0].budget, "deliveriesPerHour");
  assert.match(
    u.github.comments[0].body,
    /`routing\.budgets\.deliveriesPerHour`: 3 of 3 deliveries/,
  );
});

Deno.test("spawnsPerDay: a harness found dead once too often is not relaunched; the item pauses", async () => {
  await using t = await setup({ suspensions: true, routing: (r) => (r.budgets.spawnsPerDay = 1) });
  await t.dispatcher.dispatch(comment(1, START));
  t.runner.isAlive = false;
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "are you there")), {
    status: "settled",
    reason: "budget-exceeded",
  });
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 1, "no relaunch");
  assert.equal(t.events.ofType("budget.exceeded")[0].budget, "spawnsPerDay");
  t.runner.isAlive = true;
  assert.equal((await t.dispatcher.dispatch(comment(1, RESUME))).status, "settled");
  await replayedAll(t);
  assert.match(delivered(t).at(-1)!, /are you there/);
});

Deno.test("a cost budget on a tmux session is not measured: said once, never passed silently", async () => {
  await using t = await setup({ suspensions: true, routing: (r) => (r.budgets.costUsd = 5) });
  await t.dispatcher.dispatch(comment(1, START));
  for (const text of ["a", "b", "c"]) await t.dispatcher.dispatch(comment(1, text));
  const warned = t.events.ofType("budget.not_measured");
  assert.equal(warned.length, 1);
  assert.deepEqual(warned[0].budgets, ["costUsd"]);
  assert.equal(t.events.ofType("budget.exceeded").length, 0);
});
