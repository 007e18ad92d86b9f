import assert from "node:assert/strict";
import { DeadlineError } from "./deadline.ts";
import { withDeadline } from "./with_deadline.ts";
import { countingController } from "./_test_utils.ts";

class Late extends Error {}

Deno.test("withDeadline: the call's result or rejection when it settles in time", async () => {
  assert.equal(await withDeadline(() => Promise.resolve(7), { ms: 60_000 }), 7);
  await assert.rejects(
    withDeadline(() => Promise.reject(new Error("boom")), { ms: 60_000 }),
    /boom/,
  );
  await assert.rejects(
    withDeadline(() => {
      throw new Error("thrown");
    }, { ms: 60_000 }),
    /thrown/,
  );
});

Deno.test("withDeadline: at the deadline the call's signal is aborted with onTimeout's error, which it rejects with", async () => {
  let seen: AbortSignal | undefined;
  const out = withDeadline((signal) => {
    seen = signal;
    return new Promise<never>(() => {}); // ignores its signal
  }, { ms: 1, onTimeout: () => new Late("too slow") });
  await assert.rejects(out, (err) => err instanceof Late);
  assert.ok(seen?.aborted);
  assert.ok(seen.reason instanceof Late);
});

Deno.test("withDeadline: the default timeout error is a DeadlineError carrying the budget", async () => {
  await assert.rejects(
    withDeadline(() => new Promise<never>(() => {}), { ms: 1 }),
    (err) => err instanceof DeadlineError && err.ms === 1,
  );
});

Deno.test("withDeadline: the outer signal's abort aborts the call's signal and rejects with its reason at once", async () => {
  const { ctl, listeners } = countingController();
  let seen: AbortSignal | undefined;
  const out = withDeadline((signal) => {
    seen = signal;
    return new Promise<never>(() => {});
  }, { ms: 60_000, signal: ctl.signal });
  const why = new Error("shutdown");
  ctl.abort(why);
  // the minute-long timer is gone, or the op sanitizer fails the test
  await assert.rejects(out, (err) => err === why);
  assert.equal(seen?.reason, why);
  assert.equal(listeners(), 0);
});

Deno.test("withDeadline: an outer signal already aborted rejects without calling", async () => {
  const why = new Error("stopped before");
  let called = false;
  const out = withDeadline(() => {
    called = true;
    return Promise.resolve(1);
  }, { ms: 60_000, signal: AbortSignal.abort(why) });
  await assert.rejects(out, (err) => err === why);
  assert.equal(called, false);
});

Deno.test("withDeadline: the listener on a long-lived outer signal goes with each call", async () => {
  const { ctl, listeners } = countingController();
  for (let i = 0; i < 3; i++) {
    await withDeadline(() => Promise.resolve(i), { ms: 60_000, signal: ctl.signal });
    await withDeadline(() => new Promise<never>(() => {}), { ms: 1, signal: ctl.signal })
      .catch(() => {});
  }
  assert.equal(listeners(), 0);
});
