/**
 * `the-loop hooks validate` on a module hook whose method is a point misspelt.
 *
 * @module
 */
import assert from "node:assert/strict";
import { cli, tree } from "./_test_utils.ts";

const ENV = { THE_LOOP_CLI_CONFIG: "cli-config.yaml" };

Deno.test("hooks validate: a hook with only a misspelt point is a problem that says did you mean", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: typo\n    path: typo.ts\n",
    "typo.ts": `import { LifecycleHooks } from "@the-loop/hooks";
export default class Typo extends LifecycleHooks {
  sesion_spawn() {
    return { proceed: true };
  }
}
`,
  });
  const r = await cli(["hooks", "validate", "--no-typecheck"], { cwd, env: ENV });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /hooks\[0\]: hook "typo": implements no lifecycle point, so it would never be called \(did you mean session_spawn\? its method "sesion_spawn" is not a lifecycle point\)/,
  );
});

Deno.test("hooks validate: a misspelt method beside real points is a note, not a problem", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: typo\n    path: typo.ts\n",
    "typo.ts": `import { LifecycleHooks } from "@the-loop/hooks";
export default class Typo extends LifecycleHooks {
  override work_item_start() {}
  sesion_spawn() {
    return { proceed: true };
  }
}
`,
  });
  const r = await cli(["hooks", "validate", "--no-typecheck"], { cwd, env: ENV });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /ok +typo \(module\): .*called at work_item_start/);
  assert.match(
    r.stdout,
    /note +hook "typo": did you mean session_spawn\? its method "sesion_spawn" is not a lifecycle point, so it is never called/,
  );
  const json = await cli(["hooks", "validate", "--no-typecheck", "--format", "json"], {
    cwd,
    env: ENV,
  });
  assert.equal(json.code, 0);
  const notes = JSON.parse(json.stdout).hooks[0].notes;
  assert.equal(notes.length, 1);
  assert.match(notes[0], /did you mean session_spawn\?/);
});
