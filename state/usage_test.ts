import assert from "node:assert/strict";
import {
  countDelivery,
  countLaunch,
  countRun,
  freshUsage,
  grant,
  overBudget,
  unmeasured,
  windowUse,
} from "./usage.ts";

const T0 = new Date("2026-12-05T10:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

Deno.test("deliveriesPerHour delivers the limit in an hour and stops the one past it", () => {
  let u = freshUsage({ now: T0, launches: [] });
  for (let i = 0; i < 3; i++) {
    assert.equal(
      overBudget(u, { budgets: { deliveriesPerHour: 3 }, now: T0, next: {} }),
      undefined,
    );
    u = countDelivery(u, { at: T0 });
  }
  assert.deepEqual(overBudget(u, { budgets: { deliveriesPerHour: 3 }, now: T0, next: {} }), {
    budget: "deliveriesPerHour",
    used: 3,
    limit: 3,
  });
  // an hour on, the minute buckets have slid out
  assert.equal(
    overBudget(u, { budgets: { deliveriesPerHour: 3 }, now: at(60), next: {} }),
    undefined,
  );
  assert.equal(windowUse(u, at(59)).deliveriesPerHour, 3);
  assert.equal(windowUse(u, at(60)).deliveriesPerHour, 0);
});

Deno.test("0 turns a budget off", () => {
  let u = freshUsage({ now: T0, launches: [] });
  for (let i = 0; i < 100; i++) u = countDelivery(u, { at: T0, author: "alice" });
  const budgets = { deliveriesPerHour: 0, costUsd: 0 };
  assert.equal(
    overBudget(u, {
      budgets,
      loopGuard: { maxPerWindow: 0, windowMinutes: 10 },
      now: T0,
      next: { author: "alice" },
    }),
    undefined,
  );
});

Deno.test("the loop guard counts one author's comments in its window, and no one else's", () => {
  const loopGuard = { maxPerWindow: 2, windowMinutes: 10 };
  let u = freshUsage({ now: T0, launches: [] });
  u = countDelivery(u, { at: T0, author: "bot[bot]" });
  u = countDelivery(u, { at: at(1), author: "bot[bot]" });
  u = countDelivery(u, { at: at(1), author: "alice" });
  const ask = (who: string, now: Date) =>
    overBudget(u, { budgets: {}, loopGuard, now, next: { author: who } });
  assert.deepEqual(ask("bot[bot]", at(2)), {
    budget: "loop-guard",
    used: 2,
    limit: 2,
    who: "bot[bot]",
  });
  assert.equal(ask("alice", at(2)), undefined);
  // ten minutes after the first, it left the window
  assert.equal(ask("bot[bot]", at(10)), undefined);
  // a CI result or an item event has no author to count
  assert.equal(overBudget(u, { budgets: {}, loopGuard, now: at(2), next: {} }), undefined);
});

Deno.test("spawnsPerDay counts the item's launches of the last day, across sessions", () => {
  let u = freshUsage({
    now: T0,
    launches: [at(-24 * 60 - 1).toISOString(), at(-60).toISOString()],
  });
  assert.equal(u.launches.length, 2, "the one older than a day is gone, this launch joins");
  u = countLaunch(u, at(1));
  assert.deepEqual(
    overBudget(u, { budgets: { spawnsPerDay: 3 }, now: at(2), next: { spawn: true } }),
    {
      budget: "spawnsPerDay",
      used: 3,
      limit: 3,
    },
  );
  // a delivery that launches nothing is not stopped by it
  assert.equal(overBudget(u, { budgets: { spawnsPerDay: 3 }, now: at(2), next: {} }), undefined);
});

Deno.test("sums stop once reached: the run that took cost to the limit is the last", () => {
  let u = freshUsage({ now: T0, launches: [] });
  u = countRun(u, { costUsd: 0.6, tokens: 1000, turns: 3 });
  assert.equal(overBudget(u, { budgets: { costUsd: 1 }, now: T0 }), undefined);
  u = countRun(u, { costUsd: 0.4 });
  assert.deepEqual(overBudget(u, { budgets: { costUsd: 1 }, now: T0 }), {
    budget: "costUsd",
    used: 1,
    limit: 1,
  });
  assert.deepEqual(overBudget(u, { budgets: { tokens: 1000 }, now: T0 }), {
    budget: "tokens",
    used: 1000,
    limit: 1000,
  });
  assert.deepEqual(overBudget(u, { budgets: { turns: 4 }, now: T0 }), undefined);
});

Deno.test("sessionHours: wall time since the window opened", () => {
  const u = freshUsage({ now: T0, launches: [] });
  assert.equal(overBudget(u, { budgets: { sessionHours: 2 }, now: at(119) }), undefined);
  assert.deepEqual(overBudget(u, { budgets: { sessionHours: 2 }, now: at(120) }), {
    budget: "sessionHours",
    used: 2,
    limit: 2,
  });
});

Deno.test("a grant opens one more window: counts start again, sums count from there", () => {
  let u = freshUsage({ now: T0, launches: [] });
  u = countRun(countDelivery(u, { at: T0, n: 5, authors: ["a", "a"] }), { costUsd: 2, turns: 7 });
  const g = grant(u, at(5));
  assert.equal(g.grants, 1);
  assert.equal(g.delivered, 5, "the session's total stays");
  assert.deepEqual(windowUse(g, at(5)), {
    deliveriesPerHour: 0,
    spawnsPerDay: 0,
    sessionHours: 0,
    costUsd: 0,
    turns: 0,
  });
  assert.deepEqual(g.authors, {});
  assert.equal(
    overBudget(countRun(g, { costUsd: 0.5 }), { budgets: { costUsd: 1 }, now: at(6) }),
    undefined,
  );
});

Deno.test("a budget the harness reports nothing on is not measured, never passed", () => {
  const u = countRun(freshUsage({ now: T0, launches: [] }), { turns: 2 });
  assert.deepEqual(unmeasured(u, { costUsd: 5, tokens: 0, turns: 10 }), ["costUsd"]);
  assert.equal(windowUse(u, T0).costUsd, undefined);
});
