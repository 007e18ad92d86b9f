import assert from "node:assert/strict";
import { Deadline, deadline, DeadlineError, settlesWithin } from "./deadline.ts";

const never = () => new Promise<never>(() => {});

Deno.test("deadline: the promise's result when it settles first, its rejection too", async () => {
  assert.equal(await deadline(Promise.resolve(7), 1000), 7);
  await assert.rejects(deadline(Promise.reject(new Error("boom")), 1000), /boom/);
  assert.equal(await deadline(Promise.resolve("no limit"), undefined), "no limit");
});

Deno.test("deadline: a DeadlineError carrying the budget when the time runs out first", async () => {
  await assert.rejects(deadline(never(), 10), (e: unknown) => {
    assert.ok(e instanceof DeadlineError);
    assert.equal(e.ms, 10);
    return true;
  });
});

Deno.test("Deadline: one budget over several waits; once out, later waits fail at once", async () => {
  const d = new Deadline(20);
  try {
    assert.equal(await d.race(Promise.resolve(1)), 1);
    await assert.rejects(d.race(never()), DeadlineError);
    assert.equal(d.expired, true);
    assert.equal(d.signal.aborted, true);
    // a promise settled already still loses: the budget is spent
    await assert.rejects(d.race(Promise.resolve(2)), DeadlineError);
    // a late rejection of a raced promise is absorbed, never unhandled
    const late = Promise.withResolvers<never>();
    await assert.rejects(d.race(late.promise), DeadlineError);
    late.reject(new Error("late"));
  } finally {
    d.clear();
  }
});

Deno.test("Deadline: its signal aborts with the DeadlineError when the time runs out", async () => {
  const d = new Deadline(10);
  const aborted = new Promise((r) => d.signal.addEventListener("abort", () => r(d.signal.reason)));
  assert.ok((await aborted) instanceof DeadlineError);
  d.clear();
});

Deno.test("Deadline: clear() stops the timer (no leaked timer fails this test)", async () => {
  const d = new Deadline(60_000);
  assert.equal(await d.race(Promise.resolve("done")), "done");
  d.clear();
  d.clear();
  assert.equal(d.expired, false);
});

Deno.test("settlesWithin: true when the promise settles either way, false when out of time", async () => {
  assert.equal(await settlesWithin(Promise.resolve(), 1000), true);
  assert.equal(await settlesWithin(Promise.reject(new Error("x")), 1000), true);
  assert.equal(await settlesWithin(never(), 10), false);
});
