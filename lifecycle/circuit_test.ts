import assert from "node:assert/strict";
import { Breaker, CIRCUIT_POLICY } from "./circuit.ts";

const P = CIRCUIT_POLICY;

function failTimes(b: Breaker, n: number, at: () => number) {
  return Array.from({ length: n }, () => {
    assert.equal(b.admit(at()).kind, "call");
    return b.failed(at(), "boom");
  });
}

Deno.test("circuit: opens after the 5th failure in a row, then skips until the cool-down", () => {
  let now = 1_000_000;
  const b = new Breaker("h");
  const changes = failTimes(b, 5, () => (now += 1000));
  assert.deepEqual(changes.slice(0, 4), [undefined, undefined, undefined, undefined]);
  assert.deepEqual(changes[4], {
    kind: "opened",
    failures: 5,
    lastError: "boom",
    openedAt: now,
    retryAt: now + P.coolDownMs,
    coolDownMs: P.coolDownMs,
    reopened: false,
  });
  assert.equal(b.admit(now + P.coolDownMs - 1).kind, "skip");
  assert.equal(b.admit(now + P.coolDownMs - 1).kind, "skip");
  assert.equal(b.status().skipped, 2);
  // one probe only, however many calls come while it runs
  assert.deepEqual(b.admit(now + P.coolDownMs), { kind: "probe", after: "cool-down" });
  assert.equal(b.admit(now + P.coolDownMs).kind, "skip");
  assert.deepEqual(b.succeeded(true), {
    kind: "closed",
    after: "cool-down",
    openedAt: now,
    skipped: 3,
  });
  assert.equal(b.status().state, "closed");
  assert.equal(b.admit(now + P.coolDownMs).kind, "call");
});

Deno.test("circuit: a success, or failures older than the window, start the count again", () => {
  let now = 0;
  const b = new Breaker("h");
  failTimes(b, 4, () => (now += 1));
  b.succeeded();
  assert.deepEqual(failTimes(b, 4, () => (now += 1)).filter(Boolean), []);
  now += P.windowMs; // the four are forgotten
  assert.deepEqual(failTimes(b, 4, () => (now += 1)).filter(Boolean), []);
  assert.equal(failTimes(b, 1, () => (now += 1))[0]?.kind, "opened");
});

Deno.test("circuit: a failed probe opens it again with twice the cool-down, up to the cap", () => {
  let now = 0;
  const b = new Breaker("h", { coolDownMs: 100_000, maxCoolDownMs: 300_000 });
  failTimes(b, 5, () => now);
  const cooldowns: number[] = [];
  for (let i = 0; i < 4; i++) {
    now = b.status().retryAt!;
    assert.equal(b.admit(now).kind, "probe");
    const t = b.failed(now, "still broken", true);
    assert.ok(t?.kind === "opened" && t.reopened);
    cooldowns.push(t.coolDownMs);
    assert.equal(t.failures, 6 + i);
    assert.equal(t.openedAt, 0, "opened_at stays the first opening");
  }
  assert.deepEqual(cooldowns, [200_000, 300_000, 300_000, 300_000]);
  // a close starts over at the first cool-down
  now = b.status().retryAt!;
  b.admit(now);
  b.succeeded(true);
  const again = failTimes(b, 5, () => now)[4];
  assert.equal(again?.kind === "opened" && again.coolDownMs, 100_000);
});

Deno.test("circuit: a reset half-opens it at once; a call admitted before it opened changes nothing", () => {
  const b = new Breaker("h");
  failTimes(b, 5, () => 0);
  assert.equal(b.succeeded(), undefined, "not the probe: a late success does not close it");
  assert.equal(b.failed(1, "late"), undefined);
  assert.equal(b.admit(1).kind, "skip");
  b.reset();
  assert.deepEqual(b.admit(2), { kind: "probe", after: "reset" });
  assert.deepEqual(b.succeeded(true)?.kind, "closed");
});
