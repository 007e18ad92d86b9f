import assert from "node:assert/strict";
import { fixture, loadFixture } from "./_test_utils.ts";
import { loadModuleHook } from "./mod.ts";

const T = { timeoutMs: 5000 };

Deno.test("@the-loop/hooks resolves to the embedded SDK, from any directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hook-sdk-" });
  await Deno.copyFile(fixture("sdk_hook.ts"), `${dir}/gate.ts`);
  const hook = await loadModuleHook({
    name: "gate",
    path: `${dir}/gate.ts`,
    baseDir: dir,
    options: { allow: ["alice"] },
  });
  try {
    assert.equal(hook.handles("work_item_start"), true);
    assert.equal(hook.handles("session_spawn"), false);
    assert.deepEqual((await hook.call("work_item_start", { actor: "alice" }, T)).answer, null);
    assert.deepEqual((await hook.call("work_item_start", { actor: "mallory" }, T)).answer, {
      proceed: false,
      reason: "mallory is not on the roster",
    });
  } finally {
    await hook.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(
  "a relative import of the-loop's lifecycle/mod.ts is served from the SDK",
  async () => {
    const hook = await loadFixture("sdk_relative.ts");
    try {
      assert.equal(hook.handles("phase_changed"), true);
      assert.equal(hook.handles("work_item_start"), false);
      assert.deepEqual((await hook.call("phase_changed", {}, T)).answer, { notify: false });
    } finally {
      await hook.close();
    }
  },
);
