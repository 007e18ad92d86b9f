import assert from "node:assert/strict";
import { tree } from "../../tests/_test_utils.ts";
import { chooseGlobs, DEFAULT_GLOBS, findScenarios, matchesAny, MAX_FILE_BYTES } from "./find.ts";
import type { HarnessConfig } from "../harness_config.ts";
import { UsageError } from "../../errors.ts";

const doc = (name: string) => `/** Scenario: ${name}\n * Given it */\n`;

Deno.test("the default globs match common test layouts and not product code", () => {
  for (
    const hit of [
      "a_test.ts",
      "src/deep/x.test.ts",
      "web/x.spec.ts",
      "x.test.js",
      "pkg/test_x.py",
      "pkg/x_test.py",
      "cmd/x_test.go",
      "tests/anything.ts",
      "test/a/b.js",
      "e2e/login.ts",
      "web/__tests__/a.tsx",
    ]
  ) assert.ok(matchesAny(hit, DEFAULT_GLOBS), hit);
  for (const miss of ["src/x.ts", "main.go", "lib/util.py", "src/tests.ts"]) {
    assert.ok(!matchesAny(miss, DEFAULT_GLOBS), miss);
  }
  assert.ok(matchesAny("tests/a.ts", ["./tests/**"]), "a leading ./ is dropped");
});

Deno.test("findScenarios: files the globs match, by path; skipped folders and unknown kinds unread", async () => {
  const root = tree({
    "b_test.ts": doc("b"),
    "a/z_test.ts": doc("a/z"),
    "src/x.ts": doc("product code"),
    "node_modules/dep/d_test.ts": doc("dependency"),
    "vendor/v_test.go": "// Scenario: vendored\n",
    ".git/h_test.ts": doc("git"),
    "tests/data.json": '{"x": "Scenario: json"}',
    "tests/c.ts": doc("c") + doc("c2"),
  });
  const found = await findScenarios({ root, globs: DEFAULT_GLOBS });
  assert.deepEqual(found.scenarios.map((s) => [s.file, s.line, s.scenario]), [
    ["a/z_test.ts", 1, "a/z"],
    ["b_test.ts", 1, "b"],
    ["tests/c.ts", 1, "c"],
    ["tests/c.ts", 3, "c2"],
  ]);
  assert.equal(found.filesScanned, 3);
  const only = await findScenarios({ root, globs: ["src/**"] });
  assert.deepEqual(only.scenarios.map((s) => s.scenario), ["product code"]);
});

Deno.test("findScenarios: an unreadable file is skipped with a warning", async () => {
  const root = tree({ "a_test.ts": doc("a"), "b_test.ts": doc("b") });
  const warnings: string[] = [];
  const found = await findScenarios({
    root,
    globs: DEFAULT_GLOBS,
    warn: (m) => warnings.push(m),
    // the file system's refusal, as root (who reads everything) would never see it
    read: (path) =>
      path.endsWith("a_test.ts")
        ? Promise.reject(new Deno.errors.PermissionDenied("Permission denied"))
        : Deno.readTextFile(path),
  });
  assert.deepEqual(found.scenarios.map((s) => s.scenario), ["b"]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^skipped a_test\.ts: Permission denied/);
  assert.equal(found.filesScanned, 1);
});

Deno.test("findScenarios: a file too large to read is passed over", async () => {
  const root = tree({
    "big_test.ts": doc("big") + "x".repeat(MAX_FILE_BYTES),
    "a_test.ts": doc("a"),
  });
  const found = await findScenarios({ root, globs: DEFAULT_GLOBS });
  assert.deepEqual(found.scenarios.map((s) => s.file), ["a_test.ts"]);
});

function config(data: Record<string, unknown>): HarnessConfig {
  return { path: "/r/.the-loop/harness-config.yaml", data, locate: () => ({ line: 3, col: 5 }) };
}

Deno.test("chooseGlobs: --glob, else testing.integrationTestGlobs, else the defaults", () => {
  const cfg = config({ testing: { integrationTestGlobs: ["it/**"] } });
  assert.deepEqual(chooseGlobs(["x/**"], cfg), { globs: ["x/**"], source: "flag" });
  assert.deepEqual(chooseGlobs([], cfg), { globs: ["it/**"], source: "harness-config" });
  assert.deepEqual(chooseGlobs([], undefined), { globs: [...DEFAULT_GLOBS], source: "default" });
  assert.equal(
    chooseGlobs([], config({ testing: { integrationTestGlobs: [] } })).source,
    "default",
  );
  assert.equal(chooseGlobs([], config({ reviews: {} })).source, "default");
});

Deno.test("chooseGlobs: a key of the wrong shape is a usage error at file:line:col", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ testing: "yes" }, /harness-config\.yaml:3:5: testing: must be a mapping/],
    [
      { testing: { integrationTestGlobs: "tests/**" } },
      /testing\.integrationTestGlobs: must be a list/,
    ],
    [
      { testing: { integrationTestGlobs: ["ok/**", 7] } },
      /integrationTestGlobs\[1\]: must be a glob/,
    ],
  ];
  for (const [data, message] of cases) {
    assert.throws(() => chooseGlobs([], config(data)), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, message);
      return true;
    });
  }
});
