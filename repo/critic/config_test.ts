import assert from "node:assert/strict";
import { parseYaml } from "../../config/mod.ts";
import { UsageError } from "../../errors.ts";
import { CriticConfigError, criticsOf, DEFAULT_TIMEOUT_SECONDS } from "./config.ts";

const FILE = "/repo/.the-loop/harness-config.yaml";

function read(yaml: string) {
  const parsed = parseYaml(yaml, FILE);
  assert.deepEqual(parsed.problems, []);
  return criticsOf(parsed.data as Record<string, unknown>, FILE, parsed);
}

/** The one problem of `yaml`, as `line:col: path: message`. */
function problemOf(yaml: string): string {
  const { critics, problems } = read(yaml);
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.deepEqual(critics, []);
  const p = problems[0];
  return `${p.line}:${p.col}: ${p.path}: ${p.message}`;
}

const one = (body: string) => `reviews:\n  critics:\n    - name: c\n${body}`;

Deno.test("a harness critic and a command critic, defaults filled", () => {
  const { critics, problems } = read([
    "reviews:",
    "  critics:",
    "    - { name: claude-review, harness: claude, model: opus, env: { MODE: strict, N: 3 } }",
    "    - name: lint",
    "      command: ./review.py",
    "      args: ['--prompt-file', '{promptFile}', '--ref={workItem}']",
    "      timeoutSeconds: 30",
    "      enabled: false",
  ].join("\n"));
  assert.deepEqual(problems, []);
  assert.deepEqual(critics, [
    {
      name: "claude-review",
      model: "opus",
      env: { MODE: "strict", N: "3" },
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
      enabled: true,
      path: "reviews.critics[0]",
      kind: "harness",
      harness: "claude",
    },
    {
      name: "lint",
      model: null,
      env: {},
      timeoutSeconds: 30,
      enabled: false,
      path: "reviews.critics[1]",
      kind: "command",
      command: "./review.py",
      args: ["--prompt-file", "{promptFile}", "--ref={workItem}"],
    },
  ]);
});

Deno.test("no reviews, or no critics: none declared", () => {
  assert.deepEqual(read("other: 1\n"), { critics: [], problems: [] });
  assert.deepEqual(read("reviews: {}\n"), { critics: [], problems: [] });
});

Deno.test("each misconfiguration is one problem at its line and column", () => {
  const cases: [string, RegExp][] = [
    ["reviews: [1]\n", /^1:10: reviews: must be a mapping/],
    ["reviews:\n  critics: {a: 1}\n", /^2:12: reviews\.critics: must be a list/],
    ["reviews:\n  critics:\n    - 7\n", /^3:7: reviews\.critics\[0\]: must be a mapping/],
    ["reviews:\n  critics:\n    - { harness: claude }\n", /reviews\.critics\[0\]: needs a name/],
    [
      one("      harness: claude\n      nmae: x\n"),
      /^5:7: .*\.nmae: unknown key \(did you mean "name"\?\)/,
    ],
    [
      one("      harness: clade\n"),
      /^4:16: .*\.harness: must be one of claude, .* \(did you mean "claude"\?\)/,
    ],
    [one("      harness: claude\n      command: x\n"), /has both harness and command/],
    [
      one("      model: m\n"),
      /needs a harness \(claude, cursor, codex, gemini, opencode\) or a command/,
    ],
    [one("      command: ''\n"), /\.command: must be a program/],
    [one("      command: '{prompt}'\n"), /\.command: is argv\[0\] and takes no placeholders/],
    [one("      harness: claude\n      args: [x]\n"), /\.args: is for command critics/],
    [one("      command: x\n      args: [1]\n"), /\.args: must be a list of strings/],
    [
      one("      command: x\n      args: ['{promt}']\n"),
      /^5:14: .*\.args\[0\]: unknown placeholder \{promt\}/,
    ],
    [
      one("      command: x\n      args: ['{model}']\n"),
      /uses \{model\} but the critic sets no model/,
    ],
    [one("      command: x\n      model: 3\n"), /\.model: must be a model name/],
    [one("      command: x\n      env: [A]\n"), /\.env: must be a mapping/],
    [
      one("      command: x\n      env: { GITHUB_TOKEN: x }\n"),
      /\.env\.GITHUB_TOKEN: GITHUB_TOKEN is one of the-loop's own secrets/,
    ],
    [one("      command: x\n      env: { 'A-B': x }\n"), /\.env\.A-B: not a variable name/],
    [
      one("      command: x\n      env: { KEY: ghp_abcdefghijklmnopqrstuvwxyz0123456789 }\n"),
      /\.env\.KEY: this looks like a secret/,
    ],
    [
      one("      command: x\n      timeoutSeconds: 0\n"),
      /\.timeoutSeconds: must be a whole number of seconds/,
    ],
    [
      one("      command: x\n      timeoutSeconds: 1.5\n"),
      /\.timeoutSeconds: must be a whole number/,
    ],
    [one("      command: x\n      enabled: 'no'\n"), /\.enabled: must be true or false/],
  ];
  for (const [yaml, want] of cases) assert.match(problemOf(yaml), want, yaml);
});

Deno.test("a secret-looking value is never quoted in the problem", () => {
  const { problems } = read(
    one("      command: x\n      env: { KEY: ghp_abcdefghijklmnopqrstuvwxyz0123456789 }\n"),
  );
  assert.doesNotMatch(JSON.stringify(problems), /ghp_/);
});

Deno.test("two critics of one name: the second is refused", () => {
  const { problems } = read(
    "reviews:\n  critics:\n    - { name: a, command: x }\n    - { name: a, command: y }\n",
  );
  assert.deepEqual(problems.map((p) => [p.line, p.path, p.message]), [
    [4, "reviews.critics[1].name", '"a" is already the name of reviews.critics[0]'],
  ]);
});

Deno.test("CriticConfigError is a usage error (exit 2) that names file:line:col", () => {
  const { problems } = read(one("      harness: nope\n"));
  const err = new CriticConfigError(problems);
  assert.ok(err instanceof UsageError);
  assert.match(
    err.message,
    /^the critics are misconfigured: \/repo\/\.the-loop\/harness-config\.yaml:4:16: /,
  );
});
