import assert from "node:assert/strict";
import { parseScenarios, type Scenario } from "./parse.ts";

/** The scenarios' `[line, feature, scenario, requirement]`, for a compact comparison. */
const heads = (ss: Scenario[]) => ss.map((s) => [s.line, s.feature, s.scenario, s.requirement]);
const steps = (s: Scenario) => s.steps.map((st) => [st.keyword, st.text, st.line]);

Deno.test("TS doc comments: a feature in the module doc, each scenario in its test's doc", () => {
  const text = [
    "/**", // 1
    " * Feature: Sign-in", // 2
    " *", // 3
    " * @module", // 4
    " */", // 5
    'import { x } from "./x.ts";', // 6
    "", // 7
    "/**", // 8
    " * Scenario: a good password", // 9
    " *   Given a user `bob` with password `pw`", // 10
    " *   When bob signs in with `pw`", // 11
    " *   Then bob sees the dashboard", // 12
    " */", // 13
    'Deno.test("good", () => {});', // 14
    "/** Scenario: a bad password", // 15
    " *   Given a user bob", // 16
    " *   When bob signs in with `nope`", // 17
    " *   Then bob is refused */", // 18
  ].join("\n");
  const found = parseScenarios(text, { file: "a_test.ts", syntax: "c" });
  assert.deepEqual(heads(found), [
    [9, "Sign-in", "a good password", null],
    [15, "Sign-in", "a bad password", null],
  ]);
  assert.deepEqual(steps(found[0]), [
    ["Given", "a user `bob` with password `pw`", 10],
    ["When", "bob signs in with `pw`", 11],
    ["Then", "bob sees the dashboard", 12],
  ]);
  assert.deepEqual(steps(found[1]).map((s) => s[2]), [16, 17, 18]);
  assert.equal(found[1].steps[2].text, "bob is refused");
  assert.ok(found.every((s) => s.file === "a_test.ts" && !s.outline));
});

Deno.test("a comment opener inside a string opens no comment", () => {
  const text = [
    'const globs = ["**/*_test.ts", "src/*.ts"];', // 1
    "const t = `/* not a comment`;", // 2
    "/** Scenario: after strings", // 3
    " * Given it is found */", // 4
  ].join("\n");
  const found = parseScenarios(text, { file: "x.ts", syntax: "c" });
  assert.deepEqual(heads(found), [[3, null, "after strings", null]]);
  assert.deepEqual(steps(found[0]), [["Given", "it is found", 4]]);
});

Deno.test("Python docstrings, both quotes; steps outside a docstring are not read", () => {
  const text = [
    '"""Feature: Billing"""', // 1
    "", // 2
    "def test_invoice():", // 3
    '    """', // 4
    "    Scenario: an invoice is sent", // 5
    "      Given a customer", // 6
    "      When the month ends", // 7
    "      Then an invoice is mailed", // 8
    '    """', // 9
    '    x = "Given not a step"', // 10
    "", // 11
    "def test_refund():", // 12
    "    '''Scenario: a refund'''", // 13
  ].join("\n");
  const found = parseScenarios(text, { file: "test_billing.py", syntax: "python" });
  assert.deepEqual(heads(found), [
    [5, "Billing", "an invoice is sent", null],
    [13, "Billing", "a refund", null],
  ]);
  assert.deepEqual(steps(found[0]).map((s) => s[0]), ["Given", "When", "Then"]);
  assert.deepEqual(found[1].steps, []);
});

Deno.test("Go: a run of // lines is one block; a blank line ends it (and the scenario)", () => {
  const text = [
    "package auth", // 1
    "", // 2
    "// Feature: Tokens", // 3
    "", // 4
    "// Scenario: a token expires", // 5
    "//   Given a token issued an hour ago", // 6
    "//   When it is checked", // 7
    "//   Then it is refused", // 8
    "func TestExpiry(t *testing.T) {", // 9
    "\ts := `raw \\` // Then not a step", // 10
    "}", // 11
    "", // 12
    "//   And this belongs to no scenario", // 13
  ].join("\n");
  const found = parseScenarios(text, { file: "auth_test.go", syntax: "go" });
  assert.deepEqual(heads(found), [[5, "Tokens", "a token expires", null]]);
  assert.deepEqual(steps(found[0]), [
    ["Given", "a token issued an hour ago", 6],
    ["When", "it is checked", 7],
    ["Then", "it is refused", 8],
  ]);
});

Deno.test("Requirement: a feature's default, a scenario's own, or the next scenario's in its block", () => {
  const text = [
    "/**", // 1
    " * Feature: Export", // 2
    " * Requirement: REQ-10", // 3
    " */", // 4
    "/** Scenario: inherits */", // 5
    "/**", // 6
    " * Scenario: its own", // 7
    " * Requirement: REQ-11", // 8
    " * Given x", // 9
    " */", // 10
    "/**", // 11
    " * Requirement: REQ-12", // 12
    " * Scenario: named before it", // 13
    " */", // 14
    "/** Requirement: REQ-13 */", // 15: a block of its own, with no scenario: goes nowhere
    "/** Scenario: back to the feature's */", // 16
  ].join("\n");
  const found = parseScenarios(text, { file: "e.test.ts", syntax: "c" });
  assert.deepEqual(heads(found).map((h) => [h[2], h[3]]), [
    ["inherits", "REQ-10"],
    ["its own", "REQ-11"],
    ["named before it", "REQ-12"],
    ["back to the feature's", "REQ-10"],
  ]);
});

Deno.test("And/But steps keep their keyword; non-step prose and a bare keyword are skipped", () => {
  const text = [
    "/**",
    " * Scenario: several steps",
    " *   A description line.",
    " *   Given one",
    " *   And two",
    " *   But not three",
    " *   Then",
    " *   Thenceforth no step",
    " *   Then four",
    " */",
  ].join("\n");
  const [s] = parseScenarios(text, { file: "s.spec.ts", syntax: "c" });
  assert.deepEqual(steps(s).map((st) => [st[0], st[1]]), [
    ["Given", "one"],
    ["And", "two"],
    ["But", "not three"],
    ["Then", "four"],
  ]);
});

Deno.test("outlines are scenarios (outline: true); Examples do not end them, Background does", () => {
  const text = [
    "/**", // 1
    " * Feature: Sums", // 2
    " * Background:", // 3
    " *   Given a calculator", // 4
    " * Scenario Outline: adding <a> and <b>", // 5
    " *   When I add <a> and <b>", // 6
    " *   Then I get <c>", // 7
    " *   Examples:", // 8
    " *     | a | b | c |", // 9
    " *     | 1 | 2 | 3 |", // 10
    " * Scenario Template: the other spelling", // 11
    " * Background:", // 12
    " *   Given not a step of the template", // 13
    " */",
  ].join("\n");
  const found = parseScenarios(text, { file: "sum.test.js", syntax: "c" });
  assert.deepEqual(found.map((s) => [s.line, s.scenario, s.outline, s.steps.length]), [
    [5, "adding <a> and <b>", true, 2],
    [11, "the other spelling", true, 0],
  ]);
});

Deno.test("CRLF and lone CR line ends: the same lines and clean text", () => {
  const lf = "/**\n * Feature: F\n * Scenario: S\n *   Given g\n *   Then t\n */\n";
  const crlf = lf.replace(/\n/g, "\r\n");
  const cr = lf.replace(/\n/g, "\r");
  const want = parseScenarios(lf, { file: "f.ts", syntax: "c" });
  assert.equal(want.length, 1);
  assert.deepEqual(steps(want[0]), [["Given", "g", 4], ["Then", "t", 5]]);
  assert.deepEqual(parseScenarios(crlf, { file: "f.ts", syntax: "c" }), want);
  assert.deepEqual(parseScenarios(cr, { file: "f.ts", syntax: "c" }), want);
  const py = '"""\r\nScenario: P\r\nGiven p\r\n"""\r\n';
  assert.deepEqual(steps(parseScenarios(py, { file: "test_p.py", syntax: "python" })[0]), [
    ["Given", "p", 3],
  ]);
});

Deno.test("a Scenario outside any Feature has feature null; a later Feature does not reach back", () => {
  const text = [
    "// Scenario: on its own",
    "//   Given nothing around it",
    "",
    "// Feature: Later",
    "// Scenario: under Later",
  ].join("\n");
  const found = parseScenarios(text, { file: "x_test.go", syntax: "go" });
  assert.deepEqual(heads(found), [[1, null, "on its own", null], [
    5,
    "Later",
    "under Later",
    null,
  ]]);
});

Deno.test("a .feature file is read whole", () => {
  const text = "Feature: Plain\n\n  Scenario: in a feature file\n    Given a step\n";
  const found = parseScenarios(text, { file: "tests/a.feature", syntax: "plain" });
  assert.deepEqual(heads(found), [[3, "Plain", "in a feature file", null]]);
  assert.deepEqual(steps(found[0]), [["Given", "a step", 4]]);
});

Deno.test("no scenarios: []; an unterminated string ends with its line, a comment with the file", () => {
  assert.deepEqual(parseScenarios("", { file: "a.ts", syntax: "c" }), []);
  assert.deepEqual(
    parseScenarios("/** Given a step, no scenario */", { file: "a.ts", syntax: "c" }),
    [],
  );
  const open = parseScenarios('x = "open\n/* Scenario: unterminated', {
    file: "a.ts",
    syntax: "c",
  });
  assert.deepEqual(open.map((s) => [s.line, s.scenario]), [[2, "unterminated"]]);
  const py = parseScenarios('"""Scenario: open', { file: "t.py", syntax: "python" });
  assert.deepEqual(py.map((s) => [s.line, s.scenario]), [[1, "open"]]);
});
