import assert from "node:assert/strict";
import { until } from "./_test_utils.ts";
import { Lane } from "./lane.ts";

Deno.test("lane: tasks wait while busy() holds, then go in order", async () => {
  let busy = true;
  let looks = 0;
  const lane = new Lane({
    busy: () => {
      looks++;
      return busy;
    },
    maxWaitMs: 60_000,
  });
  const ran: string[] = [];
  const done = ["a", "b", "c"].map((name) =>
    lane.run(() => {
      ran.push(name);
      return Promise.resolve();
    })
  );
  await until(() => looks >= 3, "the lane looked three times");
  assert.deepEqual(ran, [], "nothing runs while busy() holds");
  busy = false;
  await Promise.all(done);
  assert.deepEqual(ran, ["a", "b", "c"]);
});

Deno.test("lane: a task that waited maxWaitMs goes even while busy", async () => {
  let now = 0;
  let looks = 0;
  const lane = new Lane({
    busy: () => {
      looks++;
      return true;
    },
    maxWaitMs: 2_000,
    now: () => now,
  });
  let ran = false;
  const done = lane.run(() => {
    ran = true;
    return Promise.resolve();
  });
  await until(() => looks >= 2, "the lane looked twice");
  assert.equal(ran, false);
  now = 2_000;
  await done;
  assert.equal(ran, true);
});

Deno.test("lane: at most `concurrency` tasks at once, and a failing one does not stop it", async () => {
  const lane = new Lane({ busy: () => false, concurrency: 2 });
  let running = 0;
  let most = 0;
  const release: (() => void)[] = [];
  const task = (fail: boolean) => () =>
    new Promise<void>((resolve, reject) => {
      running++;
      most = Math.max(most, running);
      release.push(() => {
        running--;
        if (fail) reject(new Error("boom"));
        else resolve();
      });
    });
  const done = [lane.run(task(true)), lane.run(task(false)), lane.run(task(false))];
  await until(() => release.length === 2, "two started");
  assert.equal(running, 2);
  release.shift()!();
  await until(() => release.length === 2, "the third started once a slot freed");
  while (release.length > 0) release.shift()!();
  await Promise.all(done);
  assert.equal(most, 2);
});
