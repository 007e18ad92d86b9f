import assert from "node:assert/strict";
import { HookTimeout } from "../../executor.ts";
import { CommandHookFailure, CommandHookTimeout } from "./mod.ts";
import { alive, diesWithin, fixture, fixturesExecutable, readPid } from "./_test_utils.ts";

/** Waits (bounded) until `file` names a live process, and returns its pid. */
async function runningPid(file: string): Promise<number> {
  const end = performance.now() + 5000;
  while (performance.now() < end) {
    const pid = await readPid(file).catch(() => 0);
    if (pid > 0 && (await alive(pid))) return pid;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no live process named in ${file} after 5 s`);
}

await fixturesExecutable();

const PARAMS = { work_item: "issue-1" };
/**
 * The budget of the timeout tests: long enough for the fixture to fork its grandchild and write
 * the pid file first even on a loaded machine (the test reads that file after the kill).
 */
const TIMEOUT_MS = 2000;

Deno.test("command: stdout and stderr are capped; a truncated stdout is a failure saying so", async () => {
  const ex = fixture("big.sh", ["300000"], { maxOutputBytes: 1000 });
  await assert.rejects(ex.call("work_item_start", PARAMS, { timeoutMs: 10_000 }), (e: unknown) => {
    assert.ok(e instanceof CommandHookFailure);
    assert.match(e.message, /longer than maxOutputBytes \(1000\) and was truncated/);
    assert.equal(e.telemetry.stdout, "x".repeat(1000));
    assert.equal(e.telemetry.stderr, "y".repeat(1000));
    assert.equal(e.telemetry.stdout_truncated, true);
    assert.equal(e.telemetry.stderr_truncated, true);
    return true;
  });
});

Deno.test("command: telemetry keeps at most 4 KiB of each stream", async () => {
  const ex = fixture("big.sh", ["10000"]);
  await assert.rejects(ex.call("work_item_start", PARAMS, { timeoutMs: 10_000 }), (e: unknown) => {
    assert.ok(e instanceof CommandHookFailure);
    assert.match(e.message, /stdout is not a JSON object/); // 10000 < 64 KiB: not truncated
    assert.equal(e.telemetry.stdout?.length, 4096);
    assert.equal(e.telemetry.stdout_truncated, false);
    return true;
  });
});

Deno.test("command: a timeout kills the whole group, grandchild included", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pidFile = `${dir}/pid`;
    const started = performance.now();
    await assert.rejects(
      fixture("grandchild_wait.sh", [pidFile]).call("work_item_start", PARAMS, {
        timeoutMs: TIMEOUT_MS,
      }),
      (e: unknown) => {
        assert.ok(e instanceof CommandHookTimeout && e instanceof HookTimeout);
        assert.match(e.message, /no result within 2000 ms; its process group was killed\.$/);
        assert.equal(e.telemetry.exit_code, undefined);
        return true;
      },
    );
    assert.ok(
      performance.now() - started < TIMEOUT_MS + 5000,
      "the call ended promptly after the timeout",
    );
    const grandchild = await readPid(pidFile);
    assert.ok(await diesWithin(grandchild, 5000), `grandchild ${grandchild} survived`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("command: a leader that exits while a grandchild holds stdout is bounded by the timeout", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pidFile = `${dir}/pid`;
    const started = performance.now();
    await assert.rejects(
      fixture("grandchild_exit.sh", [pidFile]).call("work_item_start", PARAMS, {
        timeoutMs: TIMEOUT_MS,
      }),
      (e: unknown) => {
        assert.ok(e instanceof CommandHookTimeout);
        assert.match(e.message, /exited \(code 0\) but a background process kept its stdout/);
        assert.equal(e.telemetry.exit_code, 0);
        assert.equal(e.telemetry.stdout, "{}\n");
        return true;
      },
    );
    assert.ok(
      performance.now() - started < TIMEOUT_MS + 5000,
      "the call ended promptly after the timeout",
    );
    const grandchild = await readPid(pidFile);
    assert.ok(await diesWithin(grandchild, 5000), `grandchild ${grandchild} survived`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("command: background processes left in the group do not outlive a successful call", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pidFile = `${dir}/pid`;
    const r = await fixture("leftover.sh", [pidFile]).call("work_item_start", PARAMS, {
      timeoutMs: 10_000,
    });
    assert.equal(r.answer, null);
    const leftover = await readPid(pidFile);
    assert.ok(await diesWithin(leftover, 5000), `leftover ${leftover} survived`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("command: close() kills a running hook; later calls fail", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pidFile = `${dir}/pid`;
    const ex = fixture("grandchild_wait.sh", [pidFile]);
    const pending = ex.call("work_item_start", PARAMS, { timeoutMs: 30_000 });
    const grandchild = await runningPid(pidFile);
    await ex.close();
    await ex.close();
    await assert.rejects(pending, /killed by SIGKILL/);
    assert.ok(await diesWithin(grandchild, 5000), `grandchild ${grandchild} survived`);
    await assert.rejects(
      ex.call("work_item_start", PARAMS, { timeoutMs: 1000 }),
      /the hook was closed/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
