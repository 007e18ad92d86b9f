import assert from "node:assert/strict";
import { HookFailure, HookTimeout } from "../executor.ts";
import { fixture, loadFixture, relaxed } from "./_test_helpers.ts";
import type { ProcessHook } from "./_process_executor.ts";
import type { Executor } from "../executor.ts";

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
  relaxed,
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
  relaxed,
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

Deno.test("process isolation: a throw and a load error read as in a worker", relaxed, async () => {
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

Deno.test("worker isolation: a busy loop times out as leaked, the host stays responsive", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-env",
      fixture("busy_worker_scenario.ts"),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(r.timeout, true);
  assert.equal(r.leaked, true);
  assert.match(r.message, /did not stop/);
  assert.ok(r.ticks >= 5, `the host's timers kept firing during the spin (ticks: ${r.ticks})`);
  assert.deepEqual(r.next, { proceed: true, reason: "answered" });
});
