/**
 * Attacks on the command hook's containment: processes that leave the hook's process group
 * (`setsid`, nested, with `nohup`) do not outlive the call; and the documented limit (a
 * reparented process with a fresh environment) holds as documented.
 *
 * @module
 */
import assert from "node:assert/strict";
import { CommandHookTimeout } from "./mod.ts";
import { parseScan } from "./_sweep.ts";
import { alive, diesWithin, fixture, fixturesExecutable, readPid } from "./_test_utils.ts";

await fixturesExecutable();

const PARAMS = { work_item: "issue-1" };

async function withPidFile(fn: (pidFile: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(`${dir}/pid`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("parseScan: parent links from stat lines (odd process names too), marked pids", () => {
  const t = parseScan(
    "10 (sh) S 1 10 10 0\n11 (a) b (c)) R 10 10 10 0\n12 (sleep) S 11 12 12 0\n--\n" +
      "/proc/12/environ\n/proc/40/environ\n",
  );
  assert.deepEqual([...t.parents], [[10, 1], [11, 10], [12, 11]]);
  assert.deepEqual(t.marked, [12, 40]);
});

Deno.test({
  name: "command: a setsid grandchild does not outlive a timed-out call",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withPidFile(async (pidFile) => {
      await assert.rejects(
        fixture("setsid_wait.sh", [pidFile]).call("work_item_start", PARAMS, {
          timeoutMs: 2000,
        }),
        (e: unknown) => e instanceof CommandHookTimeout,
      );
      const escaped = await readPid(pidFile);
      assert.ok(await diesWithin(escaped, 5000), `setsid grandchild ${escaped} survived`);
    }),
});

Deno.test({
  name: "command: a setsid grandchild with a fresh env is found by its parent link on timeout",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withPidFile(async (pidFile) => {
      await assert.rejects(
        fixture("env_i_setsid_wait.sh", [pidFile]).call("work_item_start", PARAMS, {
          timeoutMs: 2000,
        }),
        (e: unknown) => e instanceof CommandHookTimeout,
      );
      const escaped = await readPid(pidFile);
      assert.ok(await diesWithin(escaped, 5000), `env -i setsid grandchild ${escaped} survived`);
    }),
});

Deno.test({
  name: "command: a double-forked setsid sleeper reparented to init does not outlive the call",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withPidFile(async (pidFile) => {
      const r = await fixture("setsid_exit.sh", [pidFile]).call("work_item_start", PARAMS, {
        timeoutMs: 10_000,
      });
      assert.deepEqual(r.answer, {});
      const escaped = await readPid(pidFile);
      assert.ok(await diesWithin(escaped, 5000), `reparented sleeper ${escaped} survived`);
    }),
});

Deno.test({
  name: "command: a nohup + setsid sleeper does not outlive the call",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withPidFile(async (pidFile) => {
      const r = await fixture("nohup_setsid_exit.sh", [pidFile]).call("work_item_start", PARAMS, {
        timeoutMs: 10_000,
      });
      assert.deepEqual(r.answer, {});
      const escaped = await readPid(pidFile);
      assert.ok(await diesWithin(escaped, 5000), `nohup setsid sleeper ${escaped} survived`);
    }),
});

Deno.test({
  name: "command: the documented limit: a reparented setsid sleeper with a fresh env escapes",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withPidFile(async (pidFile) => {
      const ex = fixture("env_i_setsid_exit.sh", [pidFile]);
      await ex.call("work_item_start", PARAMS, { timeoutMs: 10_000 });
      await ex.close(); // waits for the call's sweep
      const escaped = await readPid(pidFile);
      try {
        // the sweep is over: what it did not find is still running
        assert.ok(await alive(escaped), "env -i setsid sleeper was found after all: update docs");
      } finally {
        try {
          Deno.kill(escaped, "SIGKILL");
        } catch { /* gone */ }
      }
    }),
});
