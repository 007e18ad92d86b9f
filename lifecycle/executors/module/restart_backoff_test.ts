import assert from "node:assert/strict";
import { RESTART_POLICY, RestartBackoff, restartDelay } from "./_restart_backoff.ts";

Deno.test("restart delays: none for the first death, then doubling with equal jitter, capped", () => {
  const p = RESTART_POLICY;
  assert.equal(restartDelay(1, p, 0.99), 0);
  assert.deepEqual([2, 3, 4, 5].map((n) => restartDelay(n, p, 0)), [50, 100, 200, 400]);
  assert.deepEqual([2, 3, 4, 5].map((n) => restartDelay(n, p, 1)), [100, 200, 400, 800]);
  // capped at maxMs, jitter still half of it at most
  assert.equal(restartDelay(40, p, 0), p.maxMs / 2);
  assert.equal(restartDelay(40, p, 1), p.maxMs);
  assert.equal(restartDelay(1000, p, 0.5), 22_500);
});

Deno.test("the first deaths restart on their own, later ones wait for a call after the delay", () => {
  let now = 0;
  const b = new RestartBackoff({}, { now: () => now, random: () => 0 });
  const plans = [1, 2, 3, 4, 5].map(() => {
    const plan = b.died("Uncaught Error: storm");
    now += plan.delayMs;
    b.started(true);
    return plan;
  });
  assert.deepEqual(plans.map((p) => [p.delayMs, p.eager]), [
    [0, true],
    [50, true],
    [100, true],
    [200, false],
    [400, false],
  ]);
  assert.equal(b.restarts, 5);
  assert.equal(b.streak, 5);
  b.died("Uncaught Error: storm");
  assert.equal(b.waitMs(), 800);
  assert.match(
    b.describe("worker"),
    /^its worker died 6 times in a row \(last: Uncaught Error: storm\); it is not started again for another 0\.8 s, so this call fails now$/,
  );
  now += 800;
  assert.equal(b.waitMs(), 0);
});

Deno.test("a worker that ran stableMs before it died starts a new count", () => {
  let now = 0;
  const b = new RestartBackoff({ stableMs: 1000 }, { now: () => now, random: () => 0 });
  b.died("a");
  b.started(true);
  b.died("b");
  assert.equal(b.streak, 2);
  b.started(true);
  now += 1000;
  assert.deepEqual(b.died("c"), { delayMs: 0, eager: true });
  assert.equal(b.streak, 1);
});
