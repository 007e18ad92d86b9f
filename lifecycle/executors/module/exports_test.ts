import assert from "node:assert/strict";
import { HookLoadError } from "./mod.ts";
import { loadFixture } from "./_test_utils.ts";

const T = { timeoutMs: 5000 };

Deno.test(
  "the one LifecycleHooks subclass is picked and gets the `with` options",
  async () => {
    const hook = await loadFixture("one_subclass.ts", { options: { board: "platform" } });
    try {
      assert.equal(hook.handles("work_item_start"), true);
      assert.equal(hook.handles("phase_changed"), false); // handles() from the base
      const { answer } = await hook.call("work_item_start", {}, T);
      assert.deepEqual(answer, { proceed: true, reason: "board platform" });
    } finally {
      await hook.close();
    }
  },
);

Deno.test("a default export wins over subclasses", async () => {
  const hook = await loadFixture("default_instance.ts");
  try {
    assert.deepEqual((await hook.call("work_item_start", {}, T)).answer, {
      reason: "default instance",
    });
  } finally {
    await hook.close();
  }
});

Deno.test("executor names the export to use: a class or a plain object", async () => {
  const beta = await loadFixture("two_subclasses.ts", { exportName: "Beta" });
  const gamma = await loadFixture("two_subclasses.ts", { exportName: "gamma" });
  try {
    assert.deepEqual((await beta.call("work_item_start", {}, T)).answer, { reason: "beta" });
    assert.equal(gamma.handles("phase_changed"), true);
    assert.equal(gamma.handles("work_item_start"), false);
    assert.deepEqual((await gamma.call("phase_changed", {}, T)).answer, { notify: false });
  } finally {
    await beta.close();
    await gamma.close();
  }
});

Deno.test("several subclasses and no executor: a load error naming them", async () => {
  await assert.rejects(loadFixture("two_subclasses.ts"), (e: Error) => {
    assert.ok(e instanceof HookLoadError);
    assert.match(
      e.message,
      /hook "two-subclasses": .*exports several LifecycleHooks subclasses \(Alpha, Beta\)/,
    );
    return true;
  });
});

Deno.test("no subclass, no default: a load error listing the exports", async () => {
  await assert.rejects(
    loadFixture("no_subclass.ts"),
    /exports no LifecycleHooks subclass \(exports: helper, work_item_start\)/,
  );
});

Deno.test(
  "an executor that does not exist: a load error listing the exports",
  async () => {
    await assert.rejects(
      loadFixture("two_subclasses.ts", { exportName: "Delta" }),
      /has no export named "Delta" \(exports: Alpha, Beta, gamma\)/,
    );
  },
);

Deno.test("`with` options for an object export: a load error", async () => {
  await assert.rejects(
    loadFixture("two_subclasses.ts", { exportName: "gamma", options: { x: 1 } }),
    /export "gamma" is an object, not a class: "with" options cannot reach it/,
  );
});
