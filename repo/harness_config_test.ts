import assert from "node:assert/strict";
import { join } from "node:path";
import { tree } from "../tests/_test_utils.ts";
import { ProblemsError, UsageError } from "../errors.ts";
import { HARNESS_CONFIG_PATH, readHarnessConfig, repoRoot } from "./harness_config.ts";

Deno.test("repoRoot: --root (relative to cwd), else the nearest .git up, else cwd", async () => {
  const dir = tree({ "repo/.git/HEAD": "ref: x\n", "repo/a/b/.keep": "", "loose/.keep": "" });
  assert.equal(await repoRoot({ cwd: join(dir, "repo/a/b") }), join(dir, "repo"));
  assert.equal(await repoRoot({ root: "a", cwd: join(dir, "repo") }), join(dir, "repo/a"));
  assert.equal(await repoRoot({ root: dir, cwd: "/" }), dir);
  // a worktree's .git is a file
  const wt = tree({ ".git": "gitdir: /elsewhere\n", "sub/.keep": "" });
  assert.equal(await repoRoot({ cwd: join(wt, "sub") }), wt);
});

Deno.test("repoRoot: a --root that is missing or not a folder is a usage error", async () => {
  const dir = tree({ "file.txt": "x" });
  await assert.rejects(repoRoot({ root: "nope", cwd: dir }), (e: unknown) => {
    assert.ok(e instanceof UsageError);
    assert.match(e.message, /--root nope: no such directory/);
    return true;
  });
  await assert.rejects(
    repoRoot({ root: "file.txt", cwd: dir }),
    /--root file\.txt: not a directory/,
  );
});

Deno.test("readHarnessConfig: undefined when absent, {} when empty, the mapping when present", async () => {
  assert.equal(await readHarnessConfig(tree({})), undefined);
  const empty = tree({ [HARNESS_CONFIG_PATH]: "" });
  assert.deepEqual((await readHarnessConfig(empty))?.data, {});
  const root = tree({ [HARNESS_CONFIG_PATH]: "testing:\n  integrationTestGlobs:\n    - it/**\n" });
  const cfg = await readHarnessConfig(root);
  assert.equal(cfg?.path, join(root, HARNESS_CONFIG_PATH));
  assert.deepEqual(cfg?.data, { testing: { integrationTestGlobs: ["it/**"] } });
  assert.deepEqual(cfg?.locate(["testing", "integrationTestGlobs", 0]), { line: 3, col: 7 });
});

Deno.test("readHarnessConfig: bad YAML, a list at the top, a folder: problems at file:line:col", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ [HARNESS_CONFIG_PATH]: "testing: [\n" }, /harness-config\.yaml:\d+:\d+: YAML syntax/],
    [
      { [HARNESS_CONFIG_PATH]: "- a\n- b\n" },
      /harness-config\.yaml:1:1: .*a mapping.*\(got a list\)/,
    ],
    [{ [`${HARNESS_CONFIG_PATH}/.keep`]: "" }, /harness-config\.yaml: cannot read it/],
  ];
  for (const [files, message] of cases) {
    await assert.rejects(readHarnessConfig(tree(files)), (e: unknown) => {
      assert.ok(e instanceof ProblemsError);
      assert.match(e.message, message);
      return true;
    });
  }
});
