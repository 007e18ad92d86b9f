import assert from "node:assert/strict";
import { HookFailure, HookTimeout } from "../../executor.ts";
import { HookLoadError } from "./mod.ts";
import { fixture, loadFixture, scenario, within } from "./_test_utils.ts";
import { type ProcessHook, startProcessHook } from "./_process_executor.ts";
import { bundleHook, stopBundler } from "./bundler.ts";
import { workerPermissions } from "./permissions.ts";
import type { Executor } from "../../executor.ts";

const T = { timeoutMs: 10_000 };

function pidOf(exec: Executor): number | undefined {
  return (exec as unknown as ProcessHook).pid;
}

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

Deno.test(
  "process isolation: a spinning hook is killed and replaced, others keep answering",
  async () => {
    const spins = await loadFixture("spins.ts", { isolation: "process" });
    const other = await loadFixture("plain.ts", { isolation: "process" });
    const inWorker = await loadFixture("plain.ts");
    try {
      const first = pidOf(spins)!;
      assert.ok(first > 0 && alive(first));
      const err = await spins.call("work_item_start", { spin: true }, { timeoutMs: 500 })
        .then(() => null, (e) => e);
      assert.ok(err instanceof HookTimeout, String(err));
      assert.equal(err.leaked, false);
      assert.match(
        err.message,
        /timed out after 500 ms at work_item_start; its process was killed/,
      );
      assert.equal(alive(first), false);
      // this process, the other hooks, and the same hook (in a new child) all still answer
      assert.deepEqual(
        (await other.call("work_item_start", { actor: "x" }, T)).answer?.reason,
        "seen xx",
      );
      assert.deepEqual(
        (await inWorker.call("work_item_start", { actor: "y" }, T)).answer?.reason,
        "seen yy",
      );
      const again = await spins.call("work_item_start", {}, T);
      assert.deepEqual(again.answer, { proceed: true, reason: "answered" });
      assert.notEqual(pidOf(spins), first);
    } finally {
      await spins.close();
      await other.close();
      await inWorker.close();
    }
  },
);

Deno.test(
  "process isolation: unbounded allocation kills only that hook's child",
  async () => {
    const grows = await loadFixture("allocates.ts", { isolation: "process", maxMemoryMb: 64 });
    const other = await loadFixture("plain.ts", { isolation: "process" });
    try {
      const first = pidOf(grows)!;
      const err = await grows.call("work_item_start", { grow: true }, { timeoutMs: 30_000 })
        .then(() => null, (e) => e);
      assert.ok(err instanceof HookFailure && !(err instanceof HookTimeout), String(err));
      assert.match(err.message, /hook "allocates": its process (passed its memory cap|exited)/);
      assert.equal(alive(first), false);
      assert.deepEqual(
        (await other.call("work_item_start", { actor: "z" }, T)).answer?.reason,
        "seen zz",
      );
      const again = await grows.call("work_item_start", {}, T);
      assert.deepEqual(again.answer, { proceed: true, reason: "answered 0" });
    } finally {
      await grows.close();
      await other.close();
    }
  },
);

Deno.test(
  "process isolation: maxMemoryMb is the hook's own budget, the runtime's memory is not counted",
  async () => {
    // at the floor, 16: a hook that holds nothing answers call after call, through the runtime's
    // own growth (the child's runtime and the hook's worker take about 25 MB at start and grow
    // over thousands of calls), then holds 8 MB of buffers and 12 MB of JavaScript arrays (V8's
    // heap cap is the budget and the runtime's room, not 16 alone)
    const hook = await loadFixture("holds_memory.ts", { isolation: "process", maxMemoryMb: 16 });
    try {
      const first = pidOf(hook)!;
      for (let i = 0; i < 5_000; i++) {
        const { answer } = await hook.call("work_item_start", {}, T);
        assert.equal(answer?.reason, "holding 0 + 0 MB");
      }
      // then a wait of five of the memory watch's looks (every 20 ms)
      const held = await hook.call("work_item_start", { mb: 8, heapMb: 12, waitMs: 100 }, T);
      assert.equal(held.answer?.reason, "holding 8 + 12 MB");
      assert.equal(pidOf(hook), first);
      // far past the budget, in buffers V8's heap cap does not see: the call never answers, so
      // only the memory watch can end it
      const err = await hook.call("work_item_start", { mb: 200, forever: true }, T)
        .then(() => null, (e) => e);
      assert.ok(err instanceof HookFailure, String(err));
      assert.match(err.message, /its process passed its memory cap \(16 MiB\)/);
      assert.equal(alive(first), false);
    } finally {
      await hook.close();
    }
  },
);

Deno.test("process isolation: a throw and a load error read as in a worker", async () => {
  const hook = await loadFixture("throws.ts", { isolation: "process" });
  try {
    await assert.rejects(hook.call("work_item_start", {}, T), (e: Error) => {
      assert.ok(e instanceof HookFailure);
      assert.ok(e.message.includes(`${fixture("_explode.ts")}:3:9`), e.message);
      return true;
    });
  } finally {
    await hook.close();
  }
  await assert.rejects(
    loadFixture("import_throws.ts", { isolation: "process" }),
    /hook "import-throws": .*import_throws\.ts:3:9: .*no board configured/,
  );
});

Deno.test("worker isolation: a busy loop or an Atomics.wait leaks once, then the hook is disabled; each is named for what it does", async () => {
  const out = await scenario("busy_worker_scenario.ts", { ms: 60_000 });
  const stderr = out.stderr;
  assert.equal(out.code, 0, stderr);
  const r = JSON.parse(out.stdout);
  assert.equal(r.timeout, true);
  assert.equal(r.leaked, true);
  assert.equal(r.stuck, "spinning");
  assert.match(
    r.message,
    /; its worker busy-loops and holds a CPU core; it cannot be stopped, so the hook is disabled until the-loop restarts$/,
  );
  assert.ok(r.elapsed >= 300, `the call ended before its time budget (${r.elapsed} ms)`);
  assert.ok(r.ticks >= 5, `the host's timers kept firing during the spin (ticks: ${r.ticks})`);
  // no fresh worker for the spin to pin: the next call fails at once
  assert.equal(
    r.next,
    `hook "spins" is disabled until the-loop restarts: its last call could not be stopped ` +
      `(its worker is still busy-looping)`,
  );
  assert.match(r.load, /^hook "spins-at-load": its top level did not finish within 500 ms; /);
  assert.match(
    r.load,
    /busy-looping and cannot be stopped, so its thread is leaked \(holding a CPU\)/,
  );
  // blocked, not spinning — measured while the spinning thread above still burns its core
  assert.deepEqual([r.blocked.timeout, r.blocked.leaked, r.blocked.stuck], [true, true, "blocked"]);
  assert.match(
    r.blocked.message,
    /^hook "blocks" timed out after 300 ms at work_item_start; its worker is blocked \(e\.g\. Atomics\.wait\) and did not stop; it holds no CPU, but its thread stays until the-loop exits, so the hook is disabled until the-loop restarts$/,
  );
  assert.equal(
    r.blocked.next,
    `hook "blocks" is disabled until the-loop restarts: its last call could not be stopped ` +
      `(its worker is still blocked, e.g. in Atomics.wait)`,
  );
});

Deno.test("process isolation: a busy top level is killed when the load times out", async () => {
  const started = Date.now();
  await assert.rejects(
    within(30_000, loadFixture("spins_at_load.ts", { isolation: "process", loadTimeoutMs: 1500 })),
    (e: Error) => {
      assert.ok(e instanceof HookLoadError, String(e));
      assert.equal(
        e.message,
        `hook "spins-at-load": its top level did not finish within 1500 ms; its process was killed`,
      );
      return true;
    },
  );
  assert.ok(Date.now() - started >= 1500);
});

Deno.test(
  "process isolation: a reply without the child's nonce is not a reply; the env is minimal",
  async () => {
    Deno.env.set("HOOK_TEST_ROSTER", "r-123");
    Deno.env.set("HOOK_TEST_SECRET", "s-456");
    const hook = await loadFixture("shells_out.ts", {
      isolation: "process",
      permissions: { run: ["sh"], env: ["HOOK_TEST_ROSTER"] },
    });
    try {
      // the hook's own child writes well-formed replies to the protocol channel first
      const forged = await hook.call("work_item_start", { what: "forge" }, T);
      assert.deepEqual(forged.answer, { reason: "real" });
      const { answer } = await hook.call("work_item_start", { what: "env" }, T);
      const names = String(answer?.reason).split(",");
      assert.ok(names.includes("HOOK_TEST_ROSTER") && names.includes("PATH"), names.join());
      assert.ok(!names.includes("HOOK_TEST_SECRET"), names.join());
    } finally {
      await hook.close();
      Deno.env.delete("HOOK_TEST_SECRET");
    }
  },
);

Deno.test("process isolation: a child that keeps dying is started again only after a backoff", async () => {
  const { code } = await bundleHook(fixture("allocates.ts"));
  const hook = await startProcessHook({
    name: "allocates",
    code,
    permissions: workerPermissions(undefined, fixture(".")),
    maxMemoryMb: 64,
    restartClock: { now: () => 0, random: () => 0 }, // frozen: a delay never passes by itself
  });
  try {
    const grow = () =>
      hook.call("work_item_start", { grow: true }, { timeoutMs: 30_000 }).then(
        () => "answered",
        (e: Error) => e.message,
      );
    assert.match(await grow(), /its process (passed its memory cap|exited)/);
    // the first death costs nothing: the next call starts a child at once (and it dies too)
    assert.match(await grow(), /its process (passed its memory cap|exited)/);
    assert.deepEqual([hook.status().restarts, hook.status().crashes], [1, 2]);
    // the second in a row: no child for 50–100 ms (the clock is frozen), the call fails at once
    const fast = await hook.call("work_item_start", {}, T).then(() => "answered", (e) => e);
    assert.ok(fast instanceof HookFailure);
    assert.match(
      fast.message,
      /^hook "allocates": its process died 2 times in a row \(last: its process (passed its memory cap|exited).*\); it is not started again for another 0\.1 s, so this call fails now$/,
    );
    assert.equal(hook.status().restarts, 1);
    // a circuit-breaker probe does not wait; nor does a call once the delay has passed
    const probe = await hook.call("work_item_start", {}, { ...T, probe: true });
    assert.deepEqual(probe.answer, { proceed: true, reason: "answered 0" });
    assert.equal(hook.status().restarts, 2);
  } finally {
    await hook.close();
    await stopBundler();
  }
});
