import assert from "node:assert/strict";
import { pacer } from "./pacer.ts";

/** A pacer on a fake clock whose timers the test fires by hand. */
function rig(intervalMs: number) {
  let now = 0;
  const timers: { at: number; run: () => void; cancelled?: boolean }[] = [];
  const runs: number[] = [];
  const p = pacer(() => runs.push(now), {
    intervalMs,
    now: () => now,
    later: (run, ms) => {
      const timer: { at: number; run: () => void; cancelled?: boolean } = { at: now + ms, run };
      timers.push(timer);
      return () => timer.cancelled = true;
    },
  });
  const advance = (to: number) => {
    now = to;
    for (const t of timers.splice(0).filter((t) => t.at <= to && !t.cancelled)) t.run();
  };
  return { p, runs, timers, advance, setNow: (t: number) => now = t };
}

Deno.test("after a quiet spell the pending work runs at the end of the tick, once", async () => {
  const { p, runs, timers } = rig(5);
  p.schedule();
  p.schedule(); // already scheduled: nothing more
  assert.deepEqual(runs, []);
  await Promise.resolve();
  assert.deepEqual(runs, [0]);
  assert.equal(timers.length, 0);
});

Deno.test("under load it runs at most once an interval, when the interval since the last run is up", async () => {
  const { p, runs, timers, advance, setNow } = rig(5);
  p.schedule();
  await Promise.resolve(); // ran at 0
  setNow(2);
  p.schedule(); // 2 ms after the last run: waits until 5
  p.schedule();
  await Promise.resolve();
  assert.deepEqual(runs, [0]);
  assert.deepEqual(timers.map((t) => t.at), [5]);
  advance(5);
  assert.deepEqual(runs, [0, 5]);
  setNow(11); // quiet again for longer than the interval: at the end of the tick
  p.schedule();
  await Promise.resolve();
  assert.deepEqual(runs, [0, 5, 11]);
});

Deno.test("a run the owner makes itself (ran) starts the interval again and drops the scheduled one", async () => {
  const { p, runs, timers, advance, setNow } = rig(5);
  p.ran(); // flushed by hand at 0
  p.schedule();
  await Promise.resolve();
  assert.deepEqual(runs, []);
  assert.deepEqual(timers.map((t) => t.at), [5]);
  setNow(3);
  p.ran(); // flushed by hand again before the timer: the timer is cancelled
  assert.equal(timers[0].cancelled, true);
  advance(6);
  assert.deepEqual(runs, []);
  p.schedule(); // 3 ms after the hand flush: waits until 8
  assert.deepEqual(timers.map((t) => t.at), [8]);
  advance(8);
  assert.deepEqual(runs, [8]);
});

Deno.test("with an interval of 0 every tick runs at its end", async () => {
  const { p, runs, timers } = rig(0);
  for (let tick = 0; tick < 3; tick++) {
    p.schedule();
    await Promise.resolve();
  }
  assert.deepEqual(runs, [0, 0, 0]);
  assert.equal(timers.length, 0);
});
