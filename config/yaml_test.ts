import assert from "node:assert/strict";
import { join } from "node:path";
import { ProblemsError } from "../errors.ts";
import { loadConfig, MAX_ALIAS_VALUES, MAX_DEPTH, parseYaml } from "./mod.ts";
import { envOf, tempTree } from "./_test_utils.ts";

const GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"; // token-shaped, not a real token

/** `line:col path: message` of each problem of parsing `text`. */
function yamlProblems(text: string): string[] {
  return parseYaml(text, "F").problems.map((p) => {
    assert.equal(p.file, "F");
    assert.ok(p.line !== undefined && p.col !== undefined, `unlocated: ${p.message}`);
    return `${p.line}:${p.col}${p.path ? ` ${p.path}` : ""}: ${p.message}`;
  });
}

/** The problem lines of loading `text` as a config file (its path shown as `F`). */
async function loadProblems(text: string): Promise<string[]> {
  const dir = tempTree({ "c.yaml": text });
  const file = join(dir, "c.yaml");
  const error = await loadConfig({ flag: file, env: envOf({}), cwd: dir }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof ProblemsError, `expected ProblemsError, got ${error}`);
  for (const p of error.problems) assert.ok(p.line && p.col, `unlocated: ${p.message}`);
  return error.message.replaceAll(file, "F").split("\n");
}

const NOT_PLAIN = "is not allowed: the config is plain YAML (strings, numbers, true/false, null, " +
  "mappings and lists); remove the tag";

Deno.test("tags beyond the core schema are refused, located, wherever they are", () => {
  assert.deepEqual(
    yamlProblems(
      [
        "hooks:",
        "  - name: r",
        "    url: https://h.example/rpc",
        '    headers: !!omap [{Authorization: "Bearer abcdefghijklmnopqrstu"}, {X-Team: x}]',
        "polling: !!omap [{intervalSeconds: 5}]",
        "github: !!set {x}",
        "eventLog: !!timestamp 2001-12-14",
        'state: !!binary ""',
        "webhooks: !foo {x: 1}",
        "version: ! 0.1.0",
        "collaborators: !<tag:example.com,2000:list> []",
      ].join("\n"),
    ),
    [
      `4:14 hooks[0].headers: the tag !!omap ${NOT_PLAIN}`,
      `5:10 polling: the tag !!omap ${NOT_PLAIN}`,
      `6:9 github: the tag !!set ${NOT_PLAIN}`,
      `7:11 eventLog: the tag !!timestamp ${NOT_PLAIN}`,
      `8:8 state: the tag !!binary ${NOT_PLAIN}`,
      `9:11 webhooks: the tag !foo ${NOT_PLAIN}`,
      `10:10 version: the tag ! ${NOT_PLAIN}`,
      `11:16 collaborators: the tag !<tag:example.com,2000:list> ${NOT_PLAIN}`,
    ],
  );
});

Deno.test("core tags are read when they fit their value, refused when they do not", () => {
  const ok = parseYaml(
    "a: !!str 1\nb: !!int 0x1F\nc: !!float 2.5\nd: !!bool true\ne: !!null ~\n" +
      "f: !!map {x: 1}\ng: !!seq [1]\n",
    "F",
  );
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.data, { a: "1", b: 31, c: 2.5, d: true, e: null, f: { x: 1 }, g: [1] });
  const fit = "does not fit this value; remove the tag";
  assert.deepEqual(yamlProblems("a: !!int abc\nb: !!bool maybe\nc: !!map [1]\nd: !!str {x: 1}\n"), [
    `1:4 a: the tag !!int ${fit} or fix the value`,
    `2:4 b: the tag !!bool ${fit} or fix the value`,
    `3:4 c: the tag !!map ${fit}`,
    `4:4 d: the tag !!str ${NOT_PLAIN}`,
  ]);
});

Deno.test("%YAML 1.1 changes nothing: !!binary and merge keys stay refused", () => {
  assert.deepEqual(
    yamlProblems("%YAML 1.1\n---\nbase: &b {x: 1}\nwith:\n  <<: *b\nstate: !!binary aGk=\n"),
    [
      '5:3 with: merge keys (<<) are not supported; write the keys out (quote "<<" for a literal key)',
      `6:8 state: the tag !!binary ${NOT_PLAIN}`,
    ],
  );
  // a quoted "<<" is an ordinary key
  assert.deepEqual(parseYaml('with: {"<<": 1}\n', "F").data, { with: { "<<": 1 } });
});

Deno.test("keys that collide once made strings are refused, both places named", () => {
  assert.deepEqual(yamlProblems('headers: {1: first, "1": second}\n'), [
    '1:21: YAML syntax: map keys must be unique: "1" and 1 (at line 1, col 11) are both the key ' +
    '"1"; keep one',
  ]);
  assert.deepEqual(yamlProblems("a: {1.0: x, 1: y, true: z, 'true': w}\n"), [
    '1:13: YAML syntax: map keys must be unique: 1 and 1.0 (at line 1, col 5) are both the key "1"; keep one',
    `1:28: YAML syntax: map keys must be unique: 'true' and true (at line 1, col 19) are both the key "true"; keep one`,
  ]);
});

Deno.test("keys must be non-empty strings: null, empty, collection and alias keys are refused", () => {
  assert.deepEqual(yamlProblems('~: x\n"": y\n? [a, b]\n: 1\nk: &k v\n*k : 2\n'), [
    "1:1: a key must be a non-empty string (got null)",
    '2:1: a key must be a non-empty string (got "")',
    "3:3: a key must be a string, not a list",
    "6:1: a key may not be an alias (*k); write the key out",
  ]);
});

Deno.test("aliases: unresolved and cyclic ones are refused at the alias", () => {
  assert.deepEqual(yamlProblems("a: *nope\nb: &c [1, *c]\n"), [
    "1:4 a: the alias *nope has no anchor &nope before it; define the anchor first, or write the " +
    "value out",
    "2:11 b[1]: the alias *c is inside the value it refers to (a cycle); write the value out",
  ]);
  // an anchor defined again later applies only to the aliases after it
  const redefined = parseYaml("a: &x 1\nb: *x\nc: &x 2\nd: *x\n", "F");
  assert.deepEqual(redefined.data, { a: 1, b: 1, c: 2, d: 2 });
});

Deno.test("an alias bomb is refused, located at the alias that crosses the limit", () => {
  const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (const [name, prev] of [["b", "a"], ["c", "b"], ["d", "c"], ["e", "d"], ["f", "e"]]) {
    lines.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(", ")}]`);
  }
  const problems = yamlProblems(lines.join("\n") + "\n");
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(
    problems[0],
    new RegExp(
      `^4:\\d+ d\\[\\d\\]: aliases expand to more than ${MAX_ALIAS_VALUES} values by this one ` +
        "\\(\\*c\\), an alias bomb; reuse less, or write the values out$",
    ),
  );
});

Deno.test("a problem inside an aliased value points at the alias and says where the anchor is", async () => {
  const lines = await loadProblems([
    "defaults: &poll",
    "  intervalSeconds: sixty",
    "polling: *poll",
  ].join("\n"));
  assert.deepEqual(lines, [
    'F:1:1: defaults: unknown key "defaults"',
    'F:3:10: polling.intervalSeconds: must be an integer ≥ 1 (got "sixty") (this value comes ' +
    "through the alias *poll; it is at line 2, col 20, under the anchor &poll at line 2, col 3)",
  ]);
});

Deno.test("nesting deeper than the limit is one located problem, the same every run", async () => {
  const deepWith = (levels: number) => {
    let text = "hooks:\n  - name: a\n    path: a.ts\n    with:\n";
    let indent = "      ";
    for (let i = 0; i < levels; i++) {
      text += `${indent}k:\n`;
      indent += "  ";
    }
    return text + `${indent}x: 1\n`;
  };
  // levels: the top mapping, hooks, the entry, with, then one per k
  const over = MAX_DEPTH + 1 - 4; // the with: mapping is level 4, at line 5, col 7
  const expected = `F:${5 + over}:${7 + 2 * over}: nested deeper than ` +
    `${MAX_DEPTH} levels; flatten the config`;
  for (let run = 0; run < 4; run++) {
    assert.deepEqual(await loadProblems(deepWith(1000)), [expected]);
  }
  const flow = "a: " + "[".repeat(5000) + "]".repeat(5000) + "\n";
  assert.deepEqual(yamlProblems(flow), [
    `1:${4 + MAX_DEPTH - 1}: nested deeper than ${MAX_DEPTH} levels; flatten the config`,
  ]);
  // just inside the limit reads fine
  assert.deepEqual(yamlProblems(deepWith(MAX_DEPTH - 4)), []);
  // an alias cannot nest its value past the limit either
  const nested = "a: &a " + "[".repeat(40) + "]".repeat(40) + "\nb: " + "[".repeat(30) + "*a" +
    "]".repeat(30) + "\n";
  assert.deepEqual(yamlProblems(nested), [
    `2:34 b${"[0]".repeat(30)}: the alias *a nests its value deeper than ${MAX_DEPTH} levels; ` +
    "flatten the config",
  ]);
});

Deno.test("a second document is refused, located", () => {
  assert.deepEqual(yamlProblems("a: 1\n---\nb: 2\n"), [
    '2:1: YAML syntax: the config is one document; remove the "---" and what follows it, or ' +
    "move it into the first",
  ]);
});

Deno.test("a __proto__ key is data, not the object's prototype", () => {
  const { data, problems } = parseYaml("with: {__proto__: {polluted: 1}}\n", "F");
  assert.deepEqual(problems, []);
  const withValue = (data as { with: Record<string, unknown> }).with;
  assert.equal(Object.getPrototypeOf(withValue), Object.prototype);
  assert.deepEqual(Object.keys(withValue), ["__proto__"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("token-shaped text in a key, an anchor or a tag is masked in every problem", async () => {
  const lines = await loadProblems([
    `github: { ${GHP}: 1 }`,
    `a: *${GHP}`,
    `b: !${GHP} x`,
    `c: {${GHP}: 1, ${GHP}: 2}`,
  ].join("\n"));
  const text = lines.join("\n");
  assert.ok(!text.includes(GHP), text);
  assert.ok(!text.includes(GHP.slice(0, 24)), text);
  assert.match(text, /F:2:4: a: the alias \*\[redacted\] has no anchor &\[redacted\] before it/);
  assert.match(text, /F:3:4: b: the tag !\[redacted\] is not allowed/);
  assert.match(
    text,
    /F:4:\d+: YAML syntax: map keys must be unique: \[redacted\] is already a key/,
  );
});

Deno.test("a mapping of 20,000 keys reads whole, duplicates found, every key locatable", () => {
  // Speed is measured by `deno task bench` (config_load); this checks the one-pass key check.
  const keys = Array.from({ length: 20_000 }, (_, i) => `  k${i}: ${i}`);
  const parsed = parseYaml(`with:\n${keys.join("\n")}\n  k7: again\n`, "F");
  assert.deepEqual(parsed.problems.map((p) => `${p.line}:${p.col}: ${p.message}`), [
    "20002:3: YAML syntax: map keys must be unique: k7 is already a key at line 9, col 3; keep one",
  ]);
  assert.equal(Object.keys((parsed.data as { with: object }).with).length, 20_000);
  assert.deepEqual(parsed.locate(["with", "k19999"]), { line: 20_001, col: 11 });
});
