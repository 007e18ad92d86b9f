/**
 * Hostile hooks against the worker sandbox, each through the real loader and worker (and the
 * hook-host child of `isolation: process`): signalling the-loop's process, printing on its
 * stdout, storage that needs no grant, throws the failure path trips over, and reading the
 * host's argv, cwd, executable and pid. Each attack is tried under several spellings.
 *
 * @module
 */
import assert from "node:assert/strict";
import { HookFailure, HookTimeout } from "../../executor.ts";
import type { Executor } from "../../executor.ts";
import { fixture, loadFixture, scenario } from "./_test_utils.ts";

const ISOLATIONS = ["worker", "process"] as const;
const REFUSED = /is not available to hooks/;

async function reasonOf(hook: Executor, ctx: Record<string, unknown>) {
  const { answer } = await hook.call("work_item_start", ctx, { timeoutMs: 15_000 });
  return JSON.parse(String(answer?.reason));
}

Deno.test("1: no spelling of process._kill, process.kill or Deno.kill signals the-loop", async () => {
  const r = await scenario("kills_host_scenario.ts");
  assert.equal(r.code, 0, `the scenario died (signal ${r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  for (const isolation of ISOLATIONS) {
    const got = out[isolation];
    assert.ok(!got.failed, `${isolation}: ${got.failed}`);
    for (const [attack, result] of Object.entries(got)) {
      assert.ok(
        REFUSED.test(String(result)) ||
          /^no (_kill anywhere|getter|internals)$/.test(String(result)),
        `${isolation} ${attack}: ${result}`,
      );
    }
    assert.match(got.node_internal_kill, /^process\._kill\(\) is not available to hooks/);
    assert.match(
      got.node_kill_sigstop,
      /^process\.kill\(\) .* for this process or a process group/,
    );
    assert.match(
      got.deno_kill_wrapped_pid,
      /^Deno\.kill\(\) .* for this process or a process group/,
    );
    assert.match(got.deno_kill_group, /^Deno\.kill\(\) .* for this process or a process group/);
    assert.equal(got.node_global_getter, "no getter");
    assert.equal(got.deno_internal_ops, "no internals");
  }
});

Deno.test("2: nothing a hook prints reaches the host's stdout, whatever console method", async () => {
  const r = await scenario("prints_stdout_scenario.ts");
  assert.equal(r.code, 0, r.stderr);
  // the scenario's own line, and nothing else
  assert.equal(r.stdout.split("\n").filter((l) => l !== "").length, 1, r.stdout);
  const out = JSON.parse(r.stdout);
  for (const isolation of ISOLATIONS) {
    const got = out[isolation];
    assert.ok(!got.failed, `${isolation}: ${got.failed}`);
    for (const key of ["count", "timeLog", "timeEnd", "count_reflect", "every_method"]) {
      assert.equal(got[key], "ran", `${isolation} ${key}`);
    }
  }
  for (const isolation of ISOLATIONS) {
    for (const key of ["deno_fsfile_fd1", "deno_fsfile_prototype"]) {
      assert.match(out[isolation][key], /^new Deno\.FsFile\(\) is not available to hooks/, key);
    }
  }
  for (const marker of ["count", "end", "r", "d", "process.stdout", "Deno.stdout", "class"]) {
    assert.ok(r.stderr.includes(`"by-the-hook"} ${marker}`), `${marker} not on stderr`);
  }
  assert.ok(r.stderr.includes('"by-the-hook"}: 1'), "console.count not on stderr");
  // a hook-host child's stdout carried its protocol only: its parent relayed nothing from it
  assert.doesNotMatch(r.stderr, /hook "prints-process": /);
});

Deno.test("3: no storage without a grant: Cache API, Web Locks, Web Storage, IndexedDB", async () => {
  for (const isolation of ISOLATIONS) {
    const actor = crypto.randomUUID();
    const writer = await loadFixture("stores_between_hooks.ts", { isolation });
    const reader = await loadFixture("stores_between_hooks.ts", { isolation });
    try {
      const wrote = await reasonOf(writer, { what: "write", actor });
      assert.match(wrote.caches, /^threw:ReferenceError: caches is not defined/, isolation);
      assert.equal(wrote.caches_lookup, "absent", isolation);
      assert.equal(wrote.locks, "absent", isolation);
      const read = await reasonOf(reader, { what: "read", actor });
      for (const [key, value] of Object.entries(read)) {
        assert.equal(value, "absent", `${isolation} ${key}`);
      }
    } finally {
      await writer.close();
      await reader.close();
    }
  }
});

async function oddFailure(hook: Executor, how: string): Promise<HookFailure> {
  // A reply that never came would be a HookTimeout after this long: the failure must be a reply.
  const err = await hook.call("work_item_start", { how }, { timeoutMs: 8000 }).then(
    () => null,
    (e) => e,
  );
  assert.ok(err instanceof HookFailure && !(err instanceof HookTimeout), `${how}: ${err}`);
  return err;
}

Deno.test("8: an odd throw fails the call at once, described, in worker and process", async () => {
  const cannot = /that cannot be described \(converting it to text threw\)/;
  for (const isolation of ISOLATIONS) {
    const hook = await loadFixture("throws_odd.ts", { isolation });
    try {
      const message = async (how: string) => (await oddFailure(hook, how)).message;
      assert.match(
        await message("null_prototype"),
        /the hook threw an object with no prototype: \{"code":"E_ODD"\}/,
      );
      assert.match(await message("proxy"), cannot);
      assert.match(await message("proxy_of_error"), cannot);
      assert.match(await message("revoked_proxy"), cannot);
      assert.match(await message("answer_proxy"), cannot);
      const hidden = await message("message_getter");
      assert.match(hidden, /the hook threw Error whose message cannot be read/);
      assert.ok(hidden.includes(fixture("throws_odd.ts")), hidden); // where it was thrown
      assert.match(await message("stack_getter"), /its stack cannot be read/);
      // thrown outside a call: reported on stderr, and the worker lives on
      const later = await hook.call("work_item_start", { how: "later" }, { timeoutMs: 8000 });
      assert.deepEqual(later.answer, { reason: "answered" });
      // and the hook still answers
      assert.match(await message("plain"), /unknown odd throw plain/);
    } finally {
      await hook.close();
    }
  }
});

Deno.test("8: an odd throw at load or from the constructor is a load error, not a timeout", async () => {
  for (const isolation of ISOLATIONS) {
    await assert.rejects(
      loadFixture("throws_odd_at_load.ts", { isolation, loadTimeoutMs: 8000 }),
      (e: Error) => {
        assert.match(e.message, /the hook threw an object whose prototype cannot be read/);
        assert.doesNotMatch(e.message, /did not finish/);
        return true;
      },
    );
    await assert.rejects(
      loadFixture("throws_odd.ts", {
        isolation,
        loadTimeoutMs: 8000,
        options: { throwIn: "constructor" },
      }),
      (e: Error) => {
        assert.match(e.message, /the hook threw an object with no prototype: \{"code":"E_ODD"\}/);
        return true;
      },
    );
  }
});

Deno.test("10: a hook cannot read the host's argv, cwd, executable or pid, nor set its title", async () => {
  for (const isolation of ISOLATIONS) {
    const hook = await loadFixture("host_info.ts", { isolation });
    try {
      const got = await reasonOf(hook, {});
      const refusal = (what: string) => new RegExp(`^threw:${what} is not available to hooks: `);
      assert.match(got.deno_cwd, refusal("Deno\\.cwd\\(\\)"));
      assert.match(got.cwd_reflect, refusal("Deno\\.cwd\\(\\)"));
      assert.match(got.node_cwd, refusal("process\\.cwd\\(\\)"));
      assert.match(got.deno_exec_path, refusal("Deno\\.execPath\\(\\)"));
      assert.match(got.exec_path_destructured, refusal("Deno\\.execPath\\(\\)"));
      for (
        const key of [
          "deno_args",
          "deno_pid",
          "deno_ppid",
          "node_exec_path",
          "node_argv0",
          "node_argv",
          "node_exec_argv",
          "node_pid",
          "node_ppid",
          "pid_descriptor",
          "process_getter_pid",
          "env_pwd",
          "main_module",
        ]
      ) assert.equal(got[key], "ok:undefined", `${isolation} ${key}`);
      assert.match(got.node_title_set, refusal("setting process\\.title"));
      const text = JSON.stringify(got);
      for (const secret of [Deno.cwd(), Deno.execPath()]) assert.ok(!text.includes(secret));
    } finally {
      await hook.close();
    }
  }
});
