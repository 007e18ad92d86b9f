import assert from "node:assert/strict";
import { RouteQueue } from "./mod.ts";
import { deferred } from "./_test_utils.ts";

Deno.test("jobs run in arrival order, at most `workers` at once", async () => {
  const started: number[] = [];
  const gates = new Map<number, ReturnType<typeof deferred>>();
  const q = new RouteQueue<number>({
    workers: 2,
    run: async (n) => {
      started.push(n);
      const g = deferred();
      gates.set(n, g);
      await g.promise;
    },
    onError: () => {},
  });
  for (const n of [1, 2, 3, 4]) assert.ok(q.offer(n));
  assert.deepEqual([started, q.running, q.waiting], [[1, 2], 2, 2]);
  gates.get(2)!.resolve();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(started, [1, 2, 3]);
  for (const n of [1, 3]) gates.get(n)!.resolve();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(started, [1, 2, 3, 4]);
  gates.get(4)!.resolve();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(await q.close({ timeoutMs: 1000 }), { finished: 0, handedBack: [] });
});

Deno.test("a full queue (by jobs or by bytes) refuses; a single large job still fits an empty one", async () => {
  const hold = deferred();
  const q = new RouteQueue<string>({
    workers: 1,
    maxJobs: 2,
    maxBytes: 100,
    run: () => hold.promise,
    onError: () => {},
  });
  assert.ok(q.offer("big", 500), "alone, a job over the byte bound runs");
  assert.ok(!q.offer("small", 1), "but nothing joins it");
  hold.resolve();
  await q.close({ timeoutMs: 1000 });
  const hold2 = deferred();
  const q2 = new RouteQueue<string>({
    workers: 1,
    maxJobs: 2,
    run: () => hold2.promise,
    onError: () => {},
  });
  assert.ok(q2.offer("running"));
  assert.ok(q2.offer("a"));
  assert.ok(q2.offer("b"));
  assert.ok(!q2.offer("c"), "two waiting is the bound");
  hold2.resolve();
  await q2.close({ timeoutMs: 1000 });
  assert.ok(!q2.offer("late"), "a closed queue takes nothing");
});

Deno.test("a job that throws is reported and the next one runs", async () => {
  const errors: string[] = [];
  const done: string[] = [];
  const q = new RouteQueue<string>({
    workers: 1,
    run: (j) => {
      if (j === "bad") throw new Error("bad job");
      done.push(j);
      return Promise.resolve();
    },
    onError: (j, e) => errors.push(`${j}: ${(e as Error).message}`),
  });
  q.offer("bad");
  q.offer("good");
  await q.close({ timeoutMs: 1000 });
  assert.deepEqual([errors, done], [["bad: bad job"], ["good"]]);
});

Deno.test("close lets queued jobs finish, then aborts and hands back what is left at the deadline", async () => {
  const stuck = deferred();
  let aborted = false;
  const q = new RouteQueue<string>({
    workers: 1,
    run: async (j, signal) => {
      if (j !== "stuck") return;
      signal.addEventListener("abort", () => (aborted = true));
      await stuck.promise;
    },
    onError: () => {},
  });
  q.offer("quick");
  q.offer("stuck");
  q.offer("never");
  const result = await q.close({ timeoutMs: 50 });
  assert.deepEqual(result, { finished: 1, handedBack: ["stuck", "never"] });
  assert.ok(aborted, "the running job's signal fired");
  stuck.resolve();
});
