import assert from "node:assert/strict";
import { misspeltPoints } from "../../misspelt.ts";
import { HookLoadError } from "./mod.ts";
import { loadFixture } from "./_test_utils.ts";
import { methodNames } from "./_supervisor.ts";

for (const isolation of ["worker", "process"] as const) {
  Deno.test(`misspelt point (${isolation}): the hook's methods reach the host, a did-you-mean from them`, async () => {
    const exec = await loadFixture("misspelt.ts", { isolation });
    try {
      assert.equal(exec.handles("session_spawn"), false);
      // its own methods, not the base class's (work_item_start, handles) nor Object's
      assert.deepEqual(exec.methods?.().sort(), ["helper", "sesion_spawn"]);
      assert.deepEqual(misspeltPoints(exec), [{ method: "sesion_spawn", point: "session_spawn" }]);
    } finally {
      await exec.close();
    }
  });

  Deno.test(`misspelt point (${isolation}): on naming the point it misspelt says so`, async () => {
    await assert.rejects(
      loadFixture("misspelt.ts", { isolation, on: ["session_spawn"] }),
      (err: unknown) => {
        assert.ok(err instanceof HookLoadError);
        assert.equal(
          err.message,
          'hook "misspelt": on names points the hook does not handle: session_spawn ' +
            '(did you mean session_spawn? its method "sesion_spawn" is not a lifecycle point)',
        );
        return true;
      },
    );
  });
}

Deno.test("methodNames keeps only capped identifier strings from what a sandbox reported", () => {
  assert.deepEqual(methodNames("sesion_spawn"), []);
  assert.deepEqual(methodNames(["a", 1, null, "b c", "\u001b[31m", "x".repeat(65), "a", "$ok"]), [
    "a",
    "$ok",
  ]);
  assert.equal(methodNames(Array.from({ length: 500 }, (_, i) => `m${i}`)).length, 64);
});
