import assert from "node:assert/strict";
import { HookFailure, HookTimeout } from "../../executor.ts";
import { HookLoadError, loadModuleHook } from "./mod.ts";
import { fixture, loadFixture, within } from "./_test_utils.ts";

const T = { timeoutMs: 5000 };

Deno.test("a plain-object hook answers and handles exactly its methods", async () => {
  const hook = await loadFixture("plain.ts");
  try {
    assert.equal(hook.kind, "module");
    assert.equal(hook.handles("work_item_start"), true);
    assert.equal(hook.handles("phase_changed"), true);
    assert.equal(hook.handles("session_spawn"), false);
    const { answer } = await hook.call("work_item_start", { actor: "ab" }, T);
    assert.deepEqual(answer, { proceed: true, reason: "seen abab" });
    assert.deepEqual((await hook.call("phase_changed", {}, T)).answer, null);
  } finally {
    await hook.close();
  }
});

Deno.test("a throwing hook fails the call with its message and .ts stack", async () => {
  const hook = await loadFixture("throws.ts");
  try {
    const err = await hook.call("work_item_start", {}, T).then(() => null, (e) => e);
    assert.ok(err instanceof HookFailure);
    // the hook's own error, not wrapped again: the runner attributes it to the hook and point
    assert.match(err.message, /^Error: policy failed: roster unreachable\n/);
    assert.ok(err.message.includes(`${fixture("_explode.ts")}:3:9`), err.message);
    assert.ok(err.message.includes(`${fixture("throws.ts")}:5:`), err.message);
    assert.doesNotMatch(err.message, /_runtime\.ts/);
    // the worker survives a throw
    await assert.rejects(hook.call("work_item_start", {}, T), /policy failed/);
  } finally {
    await hook.close();
  }
});

Deno.test(
  "a hung call times out, the worker is replaced and the next call works",
  async () => {
    const hook = await loadFixture("hangs.ts");
    try {
      const err = await hook.call("work_item_start", { hang: true }, { timeoutMs: 100 })
        .then(() => null, (e) => e);
      assert.ok(err instanceof HookTimeout, String(err));
      assert.equal(err.leaked, false);
      assert.match(err.message, /timed out after 100 ms at work_item_start/);
      const { answer } = await hook.call("work_item_start", {}, T);
      assert.deepEqual(answer, { proceed: true, reason: "answered" });
    } finally {
      await hook.close();
    }
  },
);

Deno.test("answers that are not plain JSON data fail clearly", async () => {
  const hook = await loadFixture("bad_answers.ts");
  try {
    const cases: [string, RegExp][] = [
      ["function", /answer\.notify is a function; a hook must answer plain JSON data/],
      ["symbol", /answer\.reason is a symbol/],
      ["map", /answer\.reason is a Map/],
      ["number", /answer must be null or an object of decisions, got a number/],
    ];
    for (const [kind, re] of cases) {
      await assert.rejects(hook.call("work_item_start", { kind }, T), (e: Error) => {
        assert.ok(e instanceof HookFailure);
        assert.match(e.message, re);
        return true;
      });
    }
    const ok = await hook.call("work_item_start", { kind: "date" }, T);
    assert.deepEqual(ok.answer, { reason: "fine", when: "1970-01-01T00:00:00.000Z" });
  } finally {
    await hook.close();
  }
});

Deno.test("a syntax error is a load error with file:line:col", async () => {
  // written at test time: a broken fixture in the repo would break `deno fmt`/`deno lint`
  const dir = await Deno.makeTempDir({ prefix: "hook-syntax-" });
  await Deno.writeTextFile(
    `${dir}/syntax_error.ts`,
    "export default {\n  work_item_start() {\n    return { proceed: true,, };\n  },\n};\n",
  );
  try {
    await assert.rejects(
      loadModuleHook({ name: "syntax-error", path: `${dir}/syntax_error.ts`, baseDir: dir }),
      (e: Error) => {
        assert.ok(e instanceof HookLoadError);
        assert.match(e.message, /^hook "syntax-error": /);
        assert.ok(e.message.includes(`${dir}/syntax_error.ts:3:28: `), e.message);
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a throw at import time is a load error with file:line:col", async () => {
  await assert.rejects(loadFixture("import_throws.ts"), (e: Error) => {
    assert.ok(e instanceof HookLoadError);
    assert.ok(e.message.includes(`${fixture("import_throws.ts")}:3:9: `), e.message);
    assert.match(e.message, /no board configured/);
    return true;
  });
});

Deno.test("a missing hook file is a load error naming it", async () => {
  await assert.rejects(loadFixture("does_not_exist.ts"), (e: Error) => {
    assert.ok(e instanceof HookLoadError);
    assert.match(e.message, /hook "does-not-exist": cannot read hook file .*does_not_exist\.ts: /);
    return true;
  });
});

Deno.test("on: a point the hook does not handle is a load error", async () => {
  await assert.rejects(
    loadFixture("plain.ts", { on: ["work_item_start", "session_spawn"] }),
    /hook "plain": on names points the hook does not handle: session_spawn/,
  );
  const hook = await loadFixture("plain.ts", { on: ["work_item_start"] });
  try {
    assert.equal(hook.handles("work_item_start"), true);
    assert.equal(hook.handles("phase_changed"), false);
  } finally {
    await hook.close();
  }
});

Deno.test("a top level that never settles fails the load after loadTimeoutMs", async () => {
  const load = loadFixture("hangs_at_load.ts", { loadTimeoutMs: 1000 });
  await assert.rejects(within(30_000, load), (e: Error) => {
    assert.ok(e instanceof HookLoadError, String(e));
    assert.equal(e.message, `hook "hangs-at-load": its top level did not finish within 1000 ms`);
    return true;
  });
});
