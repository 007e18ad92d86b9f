/**
 * `the-loop scenarios` end to end: the real CLI on a fixture repository (a temp dir with a
 * `.git`) holding TS, Python and Go tests, in all three formats; `--glob`, the harness config's
 * `testing.integrationTestGlobs`, `--root`, no scenarios, and the misconfigurations that exit 2.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, tree } from "./_test_utils.ts";

const HARNESS = ".the-loop/harness-config.yaml";

/** A repository with a scenario in each language, one in product code and one outside the tests. */
function repo(extra: Record<string, string> = {}): string {
  return tree({
    ".git/HEAD": "ref: refs/heads/main\n",
    "src/auth/login_test.ts": [
      "/**", // 1
      " * Feature: Sign-in", // 2
      " * Requirement: REQ-7", // 3
      " * @module", // 4
      " */", // 5
      'const globs = ["**/*_test.ts"];', // 6
      "/**", // 7
      " * Scenario: a good password", // 8
      " *   Given a user bob", // 9
      " *   When bob signs in", // 10
      " *   Then bob sees the dashboard", // 11
      " *   And a \x1b]52;c;cHduZWQ=\x07 welcome | with *stars*", // 12
      " */", // 13
      'Deno.test("good", () => {});', // 14
    ].join("\n"),
    "tests/test_billing.py": [
      "def test_invoice():", // 1
      '    """', // 2
      "    Scenario Outline: an invoice for <plan>", // 3
      "      Given a customer on <plan>", // 4
      "      But no discount", // 5
      '    """', // 6
    ].join("\r\n"),
    "pkg/token_test.go": [
      "package pkg", // 1
      "", // 2
      "// Scenario: a token expires", // 3
      "//   Given an old token", // 4
      "//   Then it is refused", // 5
      "func TestExpiry(t *testing.T) {}", // 6
    ].join("\n"),
    "it/flow.ts": "/** Scenario: an integration flow\n * Given the stack */\n",
    "node_modules/dep/x_test.ts": "/** Scenario: a dependency's */\n",
    ...extra,
  });
}

Deno.test("scenarios --format json: every scenario with its steps, from the repository's top", async () => {
  const root = repo();
  const r = await cli(["scenarios", "--format", "json"], { cwd: join(root, "src/auth") });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.command, "scenarios");
  assert.equal(doc.ok, true);
  assert.equal(doc.root, root);
  assert.equal(doc.globsFrom, "default");
  assert.equal(doc.harnessConfig, null);
  assert.equal(doc.filesScanned, 3);
  assert.deepEqual(
    doc.scenarios.map((s: Record<string, unknown>) => [s.file, s.line, s.feature, s.scenario]),
    [
      ["pkg/token_test.go", 3, null, "a token expires"],
      ["src/auth/login_test.ts", 8, "Sign-in", "a good password"],
      ["tests/test_billing.py", 3, null, "an invoice for <plan>"],
    ],
  );
  const [go, ts, py] = doc.scenarios;
  assert.deepEqual(go.steps, [
    { keyword: "Given", text: "an old token", line: 4 },
    { keyword: "Then", text: "it is refused", line: 5 },
  ]);
  assert.equal(ts.requirement, "REQ-7");
  assert.equal(ts.outline, false);
  // JSON keeps the file's exact text (JSON escapes it)
  assert.equal(ts.steps[3].text, "a \x1b]52;c;cHduZWQ=\x07 welcome | with *stars*");
  assert.deepEqual([py.outline, py.requirement], [true, null]);
  assert.deepEqual(py.steps.map((s: { keyword: string; line: number }) => [s.keyword, s.line]), [
    ["Given", 4],
    ["But", 5],
  ]);
});

Deno.test("scenarios (table): file:line per scenario, terminal-safe cells", async () => {
  const root = repo({
    "tests/evil\x1b[2J.ts": "/** Feature: \x1b]0;owned\x07\n * Scenario: a\rfake */\n",
  });
  const r = await cli(["scenarios"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^Location\s+Feature\s+Scenario\s+Requirement\s+Steps$/);
  assert.deepEqual(lines.slice(1).map((l) => l.split(/\s{2,}/)), [
    ["pkg/token_test.go:3", "-", "a token expires", "-", "2"],
    ["src/auth/login_test.ts:8", "Sign-in", "a good password", "REQ-7", "4"],
    ["tests/evil\\e[2J.ts:2", "\\e]0;owned\\x07", "a", "-", "0"],
    ["tests/test_billing.py:3", "-", "an invoice for <plan> (outline)", "-", "2"],
  ]);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(r.stdout, /[\x00-\x08\x0b-\x1f\x7f]/);
});

Deno.test("scenarios --format markdown: a GitHub table, untrusted text escaped", async () => {
  const root = repo({
    "e2e/evil.test.ts":
      "/** Feature: a | pipe\n * Scenario: <img src=x> *bold* \x1b[2J `code`\n */\n",
  });
  const r = await cli(["scenarios", "--format", "markdown", "--glob", "e2e/**"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      "| Location | Feature | Scenario | Requirement | Steps |",
      "| --- | --- | --- | --- | --- |",
      "| e2e/evil.test.ts:2 | a \\| pipe | &lt;img src=x&gt; \\*bold\\* \\\\e\\[2J \\`code\\` | - | 0 |",
      "",
    ].join("\n"),
  );
});

Deno.test("scenarios --glob (repeatable) replaces the defaults; the harness config's globs come next", async () => {
  const root = repo({ [HARNESS]: "testing:\n  integrationTestGlobs: [it/**, pkg/**]\n" });
  const fromConfig = JSON.parse(
    (await cli(["scenarios", "--format", "json"], { cwd: root })).stdout,
  );
  assert.equal(fromConfig.globsFrom, "harness-config");
  assert.equal(fromConfig.harnessConfig, join(root, HARNESS));
  assert.deepEqual(fromConfig.globs, ["it/**", "pkg/**"]);
  assert.deepEqual(fromConfig.scenarios.map((s: { file: string }) => s.file), [
    "it/flow.ts",
    "pkg/token_test.go",
  ]);
  const r = await cli(
    ["scenarios", "--format", "json", "--glob", "it/**", "--glob", "tests/**"],
    { cwd: root },
  );
  assert.equal(r.code, 0, r.stderr);
  const flagged = JSON.parse(r.stdout);
  assert.equal(flagged.globsFrom, "flag");
  assert.deepEqual(flagged.scenarios.map((s: { file: string }) => s.file), [
    "it/flow.ts",
    "tests/test_billing.py",
  ]);
});

Deno.test("scenarios --root: another repository, relative to the cwd", async () => {
  const root = repo();
  const elsewhere = tree({});
  const r = await cli(["scenarios", "--root", root, "--glob", "pkg/**"], { cwd: elsewhere });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^pkg\/token_test\.go:3\s+-\s+a token expires/m);
});

Deno.test("no scenarios: exit 0 — a note on stderr, a sentence in markdown, [] in JSON", async () => {
  const root = tree({ "src/x.ts": "/** Scenario: not a test file */\n" });
  const table = await cli(["scenarios"], { cwd: root });
  assert.equal(table.code, 0, table.stderr);
  assert.equal(table.stdout, "");
  assert.match(
    table.stderr,
    /^\(no scenarios found in 0 files under .*\(globs: \*\*\/\*_test\.ts, /,
  );
  const md = await cli(["scenarios", "--format", "markdown"], { cwd: root });
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /^No scenarios found in 0 files under /);
  const json = await cli(["scenarios", "--format", "json"], { cwd: root });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.deepEqual([doc.ok, doc.root, doc.filesScanned, doc.scenarios], [true, root, 0, []]);
});

Deno.test("misconfiguration exits 2 with one clear line and no JSON", async () => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    ["bad YAML", { [HARNESS]: "testing: [\n" }, [], /harness-config\.yaml:\d+:\d+: YAML syntax/],
    [
      "globs not a list",
      { [HARNESS]: "testing:\n  integrationTestGlobs: tests/**\n" },
      [],
      /harness-config\.yaml:2:25: testing\.integrationTestGlobs: must be a list of globs/,
    ],
    ["an unknown format", {}, ["--format", "yaml"], /argument 'yaml' is invalid/],
    ["a root that does not exist", {}, ["--root", "nope"], /--root nope: no such directory/],
    [
      "a root that is a file",
      { "f.txt": "x" },
      ["--root", "f.txt"],
      /--root f\.txt: not a directory/,
    ],
  ];
  for (const [label, files, args, message] of cases) {
    const cwd = tree(files);
    for (const format of args.includes("--format") ? [[]] : [[], ["--format", "json"]]) {
      const r = await cli(["scenarios", ...args, ...format], { cwd });
      assert.equal(r.code, 2, `${label}: ${r.stderr}`);
      assert.equal(r.stdout, "", label);
      assert.match(r.stderr, message, label);
      assert.equal(r.stderr.trimEnd().split("\n").length, 1, `${label}: ${r.stderr}`);
    }
  }
});

Deno.test("docs/scenarios.md: its example test file prints the table it shows", async () => {
  const page = await Deno.readTextFile(new URL("../docs/scenarios.md", import.meta.url));
  const example = /```ts\n([\s\S]*?)```/.exec(page)![1];
  const shown = /```sh\n\$ the-loop scenarios\n([\s\S]*?)```/.exec(page)![1];
  const root = tree({ ".git/HEAD": "ref: x\n", "src/auth/login_test.ts": example });
  const r = await cli(["scenarios"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, shown);
});
