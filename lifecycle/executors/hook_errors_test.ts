/**
 * Every kind's failures carry the fields their messages are written from: the hook's name, its
 * kind, the point when a call was under way, and a code to decide by.
 */
import assert from "node:assert/strict";
import { HookError, HookFailure, HookLoadError, HookTimeout } from "../executor.ts";
import { createRemoteExecutor } from "./remote/mod.ts";
import { closedPortUrl, json, startServer } from "./remote/_test_utils.ts";
import { CommandHookFailure, createCommandExecutor } from "./command/mod.ts";
import { fixture, fixturesExecutable, TESTDATA } from "./command/_test_utils.ts";
import { loadModuleHook, stopBundler } from "./module/mod.ts";

await fixturesExecutable();

const T = { timeoutMs: 10_000 };

function fields(e: unknown) {
  assert.ok(e instanceof HookError, String(e));
  return { hook: e.hook, kind: e.kind, point: e.point, code: e.code };
}

Deno.test("remote failures: config at creation, transport and timeout at a call", async () => {
  assert.throws(() => createRemoteExecutor({ name: "r", url: "not a url" }), (e: unknown) => {
    assert.ok(e instanceof HookFailure);
    assert.deepEqual(fields(e), { hook: "r", kind: "remote", point: undefined, code: "config" });
    return true;
  });
  const down = createRemoteExecutor({ name: "r", url: await closedPortUrl() });
  const unreachable = await down.call("work_item_start", {}, T).catch((e) => e);
  assert.deepEqual(fields(unreachable), {
    hook: "r",
    kind: "remote",
    point: "work_item_start",
    code: "transport",
  });
  const release = Promise.withResolvers<void>();
  const srv = startServer(async (b) => {
    await release.promise;
    return json({ jsonrpc: "2.0", id: b?.id, result: null });
  });
  try {
    const slow = createRemoteExecutor({ name: "r", url: srv.url });
    const timedOut = await slow.call("session_spawn", {}, { timeoutMs: 50 }).catch((e) => e);
    assert.ok(timedOut instanceof HookTimeout);
    assert.equal(fields(timedOut).code, "timeout");
  } finally {
    release.resolve();
    await srv.close();
  }
});

Deno.test("command failures: exit status with telemetry, a missing program, an empty command", async () => {
  const crash = await fixture("crash.sh").call("work_item_start", {}, T).catch((e) => e);
  assert.ok(crash instanceof CommandHookFailure);
  assert.deepEqual(fields(crash), {
    hook: "fx",
    kind: "command",
    point: "work_item_start",
    code: "exit-status",
  });
  assert.equal(crash.telemetry.exit_code, 1);
  const missing = await fixture("missing.sh").check().catch((e) => e);
  assert.equal(fields(missing).code, "not-runnable");
  assert.throws(
    () => createCommandExecutor({ name: "e", argv: [], cwd: TESTDATA }),
    (e: unknown) => fields(e).code === "config",
  );
  const notJson = await fixture("not_json.sh").call("work_item_start", {}, T).catch((e) => e);
  assert.equal(fields(notJson).code, "bad-answer");
});

Deno.test("module failures: a load error names the hook and says why by code", async () => {
  const missing = await loadModuleHook({ name: "gone", path: "/nowhere/gone.ts", baseDir: "/" })
    .catch((e) => e);
  assert.ok(missing instanceof HookLoadError);
  assert.deepEqual(fields(missing), {
    hook: "gone",
    kind: "module",
    point: undefined,
    code: "load-failed",
  });
});

Deno.test("module failures: an import that would leave the sandbox is refused-import", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/leaves.ts`, `import "https://example.com/x.ts";\n`);
    await Deno.writeTextFile(`${dir}/broken.ts`, `export default {,};\n`);
    const load = (name: string, file: string) =>
      loadModuleHook({ name, path: `${dir}/${file}`, baseDir: dir }).catch((e) => e);
    assert.deepEqual(fields(await load("leaves", "leaves.ts")), {
      hook: "leaves",
      kind: "module",
      point: undefined,
      code: "refused-import",
    });
    assert.equal(fields(await load("broken", "broken.ts")).code, "load-failed");
  } finally {
    await stopBundler();
    await Deno.remove(dir, { recursive: true });
  }
});
