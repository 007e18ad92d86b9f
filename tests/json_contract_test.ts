/**
 * Every `--format json` is a documented contract (docs/ci.md): the real CLI is run in success
 * and failure outcomes (problems, a config with errors, an unreadable config, a missing one) and
 * its stdout is validated against the published schema (`schema/cli/`), with the exit code
 * carrying the verdict: 0 when `ok`, 1 otherwise; a usage error stays exit 2, text on stderr.
 * A shape change is therefore a schema change.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { POINT_NAMES } from "../lifecycle/sdk/mod.ts";
import { cli, type CliResult, START_CONTEXT, tree } from "./_test_utils.ts";

const SCHEMA_DIR = new URL("../schema/cli/", import.meta.url);
const SCHEMAS = [
  "hooks",
  "hooks-validate",
  "hooks-test",
  "config-validate",
  "config-show",
  "events-types",
  "poll-status",
  "gh-webhook-status",
  "poll-dry-run",
  "sessions-list",
  "loops",
  "loops-show",
  "verb",
  "hooks-suspended",
  "notify-test",
  "critic-list",
  "critic-run",
  "scenarios",
];

async function readSchema(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(new URL(`${name}.json`, SCHEMA_DIR)));
}

// strict, but a `then` may require what the schema's own `properties` declare
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
ajv.addSchema(await readSchema("envelope"));
for (const name of SCHEMAS) ajv.addSchema(await readSchema(name));

function validator(name: string): ValidateFunction {
  const v = ajv.getSchema(`${name}.json`);
  assert.ok(v, `schema/cli/${name}.json`);
  return v;
}

/** A parsed document: the envelope's fields typed, the command's as unknown. */
type Doc = Record<string, unknown> & { ok: boolean; problems: { message: string }[] };

/**
 * Checks a finished run against `schema`: stdout is one JSON document that validates, `command`
 * names the command, and the exit code is the verdict. Returns the document.
 */
function conforms(
  r: CliResult,
  schema: string,
  want: { ok: boolean },
): Doc {
  let doc: Doc;
  try {
    doc = JSON.parse(r.stdout);
  } catch (error) {
    assert.fail(`${schema}: stdout is not JSON (${error}): ${r.stdout}\nstderr: ${r.stderr}`);
  }
  const validate = validator(schema);
  assert.ok(validate(doc), `${schema}: ${ajv.errorsText(validate.errors)}\n${r.stdout}`);
  assert.equal(doc.ok, want.ok, r.stdout + r.stderr);
  assert.equal(r.code, want.ok ? 0 : 1, r.stderr);
  if (!want.ok) assert.notEqual(r.stderr, "", "a failure still says why on stderr");
  return doc;
}

const DECIDE_SH = '#!/bin/sh\ncat >/dev/null\nprintf \'{"reason": "checked"}\\n\'\n';

/** A project with one hook of each kind (none of them loaded by `hooks`). */
function project(): string {
  return tree({
    "cli-config.yaml": [
      "eventLog: { path: events.jsonl }",
      "hooks:",
      "  - name: tagger",
      "    path: hooks/tagger.ts",
      "    permissions: { net: [api.example.com:443], env: true }",
      "  - name: gate",
      "    url: https://hooks.example/rpc",
      "    on: [work_item_start]",
      "  - name: decide",
      "    command: [./hooks/decide.sh]",
      "    on: [work_item_start, session_spawn]",
    ].join("\n") + "\n",
    "hooks/tagger.ts": "export default class {}\n",
    "hooks/decide.sh": [DECIDE_SH, 0o755],
    "start.json": JSON.stringify(START_CONTEXT),
    "same.json": JSON.stringify({ reason: "checked" }),
    "other.json": JSON.stringify({ reason: "something else" }),
  });
}

const BAD_DECLARATION = "hooks:\n  - name: both\n    path: a.ts\n    url: https://x.example/\n";

/** Configs every config-reading command must answer in JSON: [label, files, --config]. */
const BROKEN: [string, Record<string, string>, string][] = [
  ["a config with errors", { "c.yaml": "polling: { intervalSeconds: 0 }\n" }, "c.yaml"],
  ["a bad hooks declaration", { "c.yaml": BAD_DECLARATION }, "c.yaml"],
  ["invalid YAML", { "c.yaml": "polling: [\n" }, "c.yaml"],
  ["an unreadable config (a folder)", { "c.yaml/.keep": "" }, "c.yaml"],
  ["a config file that does not exist", {}, "missing.yaml"],
];

Deno.test("every schema is draft 2020-12, compiles strictly, and knows every point", async () => {
  for (const name of ["envelope", ...SCHEMAS]) {
    const s = await readSchema(name);
    assert.equal(s.$schema, "https://json-schema.org/draft/2020-12/schema", name);
    assert.equal(s.$id, `${name}.json`);
    validator(name === "envelope" ? "envelope" : name);
  }
  const env = await readSchema("envelope");
  const defs = env.$defs as { points: { items: { enum: string[] } } };
  assert.deepEqual(defs.points.items.enum, [...POINT_NAMES]);
});

Deno.test("hooks --format json: the envelope; on always a list, onAll, grants {all, list}", async () => {
  const cwd = project();
  const doc = conforms(
    await cli(["-c", "cli-config.yaml", "hooks", "--format", "json"], { cwd }),
    "hooks",
    {
      ok: true,
    },
  );
  assert.equal(doc.command, "hooks");
  assert.deepEqual(doc.config, {
    path: join(cwd, "cli-config.yaml"),
    source: "flag",
    searched: [],
  });
  const hooks = doc.hooks as Record<string, unknown>[];
  assert.deepEqual(hooks.map((h) => [h.name, h.on, h.onAll]), [
    ["tagger", [...POINT_NAMES], true],
    ["gate", ["work_item_start"], false],
    ["decide", ["work_item_start", "session_spawn"], false],
  ]);
  assert.deepEqual(hooks[0].permissions, {
    net: { all: false, list: ["api.example.com:443"] },
    env: { all: true, list: [] },
  });
});

Deno.test("config-reading commands print the envelope with ok: false when the config is broken", async () => {
  const runs: [string[], string, Record<string, unknown>][] = [
    [["hooks", "--format", "json"], "hooks", { hooks: [] }],
    [
      ["hooks", "test", "x", "--point", "work_item_start", "--context", "-", "--format", "json"],
      "hooks-test",
      { hook: "x" },
    ],
    [["config", "validate", "--format", "json"], "config-validate", {}],
    [["config", "show", "--format", "json"], "config-show", {}],
    [["poll", "status", "--format", "json"], "poll-status", {}],
    [["gh-webhook", "status", "--format", "json"], "gh-webhook-status", {}],
    [["poll", "start", "--dry-run", "--format", "json"], "poll-dry-run", {}],
    [["sessions", "list", "--format", "json"], "sessions-list", { sessions: [] }],
    [["loops", "--format", "json"], "loops", { loops: [], defaultLoop: null }],
    [["hooks", "suspended", "--format", "json"], "hooks-suspended", { suspended: [] }],
    [
      ["loops", "show", "github:octo/repo#1", "--format", "json"],
      "loops-show",
      { ref: "github:octo/repo#1", position: null, node: null },
    ],
    [
      ["reply", "github:octo/repo#1", "--text", "yes", "--actor", "alice", "--format", "json"],
      "verb",
      { workItem: "github:octo/repo#1", socket: null },
    ],
  ];
  for (const [label, files, config] of BROKEN) {
    const cwd = tree(files);
    for (const [args, schema, fields] of runs) {
      // config show and poll read no hooks: a bad declaration is for the hooks commands to find
      // (`hooks suspended` reads the state root, not the declaration)
      const readsHooks = schema.startsWith("hooks") && schema !== "hooks-suspended";
      if (!readsHooks && files["c.yaml"] === BAD_DECLARATION) continue;
      const r = await cli(["-c", config, ...args], { cwd, stdin: "{}" });
      const doc = conforms(r, schema, { ok: false });
      const what = `${args.join(" ")} with ${label}`;
      assert.ok(doc.problems.length > 0, what);
      for (const [k, v] of Object.entries(fields)) assert.deepEqual(doc[k], v, what);
      assert.deepEqual(
        doc.config &&
          [(doc.config as { path: string }).path, (doc.config as { source: string }).source],
        [join(cwd, config), "flag"],
        what,
      );
    }
  }
});

Deno.test("config validate and config show --format json: success, located problems", async () => {
  const cwd = tree({ "c.yaml": "eventLog: { enabled: false }\n" });
  const ok = conforms(
    await cli(["-c", "c.yaml", "config", "validate", "--format", "json"], { cwd }),
    "config-validate",
    {
      ok: true,
    },
  );
  assert.deepEqual(ok.problems, []);
  // a warning (a bot among the users) keeps ok and exit 0, and validates
  const bot = tree({
    "c.yaml": 'webhooks: { ghWebhook: { routing: { authorizedUsers: [alice, "x[bot]"] } } }\n',
  });
  const warned = conforms(
    await cli(["-c", "c.yaml", "config", "validate", "--format", "json"], { cwd: bot }),
    "config-validate",
    { ok: true },
  );
  assert.deepEqual((warned.warnings as { path: string }[]).map((w) => w.path), [
    "webhooks.ghWebhook.routing.authorizedUsers[1]",
  ]);
  const shown = conforms(
    await cli(["-c", "c.yaml", "config", "show", "--format", "json"], { cwd }),
    "config-show",
    {
      ok: true,
    },
  );
  assert.equal((shown.resolved as { eventLog: { enabled: boolean } }).eventLog.enabled, false);

  const bad = tree({ "c.yaml": "polling: { intervalSeconds: 0 }\n" });
  const r = await cli(["-c", "c.yaml", "config", "validate", "--format", "json"], { cwd: bad });
  const doc = conforms(r, "config-validate", { ok: false });
  assert.deepEqual(doc.problems, [{
    file: join(bad, "c.yaml"),
    line: 1,
    col: 29,
    path: "polling.intervalSeconds",
    message: "must be an integer ≥ 1 (got 0)",
  }]);

  // no file anywhere: defaults apply, and where the lookup looked is said
  const none = tree();
  const env = { HOME: join(none, "home") };
  for (
    const [args, schema] of [[["config", "validate"], "config-validate"], [
      ["config", "show"],
      "config-show",
    ]] as const
  ) {
    const d = conforms(await cli([...args, "--format", "json"], { cwd: none, env }), schema, {
      ok: true,
    });
    const config = d.config as { path: null; source: string; searched: string[] };
    assert.deepEqual([config.path, config.source], [null, "none"]);
    assert.equal(config.searched[0], join(none, ".the-loop"));
  }
});

Deno.test({
  name: "hooks validate --format json: the envelope with a broken config",
  async fn() {
    for (const [label, files, config] of BROKEN) {
      const r = await cli(["-c", config, "hooks", "validate", "--format", "json"], {
        cwd: tree(files),
      });
      const doc = conforms(r, "hooks-validate", { ok: false });
      assert.deepEqual(doc.hooks, [], label);
    }
  },
});

Deno.test({
  name: "hooks validate --format json: a passing and a failing preflight",
  async fn() {
    const pass = tree({
      "c.yaml": "hooks:\n  - name: gate\n    url: https://hooks.example/rpc\n",
    });
    const ok = conforms(
      await cli(["-c", "c.yaml", "hooks", "validate", "--format", "json"], { cwd: pass }),
      "hooks-validate",
      {
        ok: true,
      },
    );
    assert.equal((ok.hooks as unknown[]).length, 1);
    const fail = tree({
      "c.yaml":
        "hooks:\n  - name: gate\n    url: https://hooks.example/rpc\n    tokenEnv: NOT_SET_ANYWHERE\n",
    });
    const r = await cli(["-c", "c.yaml", "hooks", "validate", "--format", "json"], { cwd: fail });
    const doc = conforms(r, "hooks-validate", { ok: false });
    assert.match(doc.problems[0].message, /NOT_SET_ANYWHERE/);
  },
});

Deno.test("hooks test --format json: pass, --expect mismatch, unknown hook", async () => {
  const cwd = project();
  const run = (...more: string[]) =>
    cli(["-c", "cli-config.yaml", "hooks", "test", ...more, "--format", "json"], { cwd });
  const args = ["decide", "--point", "work_item_start", "--context", "start.json"];
  const ok = conforms(await run(...args, "--expect", "same.json"), "hooks-test", { ok: true });
  assert.deepEqual([ok.hook, ok.point, (ok.expect as { ok: boolean }).ok], [
    "decide",
    "work_item_start",
    true,
  ]);
  const differs = conforms(await run(...args, "--expect", "other.json"), "hooks-test", {
    ok: false,
  });
  assert.match(differs.problems[0].message, /reason differs from --expect other\.json/);
  assert.equal((differs.expect as { ok: boolean }).ok, false);
  const unknown = conforms(
    await run("nobody", "--point", "work_item_start", "--context", "start.json"),
    "hooks-test",
    {
      ok: false,
    },
  );
  assert.equal(unknown.hook, "nobody");
  assert.equal(unknown.disposition, undefined);
  assert.match(unknown.problems[0].message, /no hook named "nobody"/);
});

Deno.test("events --types --format json: the catalog under types, no config read", async () => {
  const doc = conforms(await cli(["events", "--types", "--format", "json"]), "events-types", {
    ok: true,
  });
  assert.equal(doc.config, null);
  assert.ok(Object.hasOwn(doc.types as object, "hooks.ran"));
});

Deno.test("a usage error prints no JSON: exit 2, text on stderr", async () => {
  for (
    const args of [
      ["hooks", "test", "x", "--point", "nowhere", "--context", "-", "--format", "json"],
      ["events", "--types", "--type", "x", "--format", "json"],
      ["config", "validate", "--format", "yaml"],
    ]
  ) {
    const r = await cli(args, { stdin: "{}" });
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
    assert.notEqual(r.stderr, "");
  }
});

Deno.test("poll status and poll start --dry-run --format json: success, and no token", async () => {
  const { FakeGitHub } = await import("./fake_github/mod.ts");
  await using gh = await FakeGitHub.start({ token: "t0k" });
  const issue = gh.world.addIssue("octo/repo", { labels: ["the-loop: auto-execute"] });
  gh.world.addComment("octo/repo", issue.number, "the-loop:start-execution", "alice");
  const cwd = tree({
    "c.yaml": [
      `github: { apiUrl: "${gh.url}", tokenEnv: CONTRACT_TOKEN }`,
      "webhooks: { ghWebhook: { routing: { authorizedUsers: [alice] } } }",
      "polling: { sources: [{ provider: github, repos: [octo/repo] }] }",
      "",
    ].join("\n"),
  });
  const status = conforms(
    await cli(["-c", "c.yaml", "poll", "status", "--format", "json"], { cwd }),
    "poll-status",
    { ok: true },
  );
  assert.equal(status.running, false);
  const dry = conforms(
    await cli(["-c", "c.yaml", "poll", "start", "--dry-run", "--format", "json"], {
      cwd,
      env: { CONTRACT_TOKEN: "t0k" },
    }),
    "poll-dry-run",
    { ok: true },
  );
  const handovers = dry.handovers as { workItem: string; kind: string; actor: string }[];
  assert.ok(handovers.some((h) => h.workItem === "github:octo/repo#1" && h.actor === "alice"));
  // no token anywhere (and no gh to ask): the envelope says so, exit 1
  const none = conforms(
    await cli(["-c", "c.yaml", "poll", "start", "--dry-run", "--format", "json"], {
      cwd,
      env: { PATH: "/nonexistent" },
    }),
    "poll-dry-run",
    { ok: false },
  );
  assert.match(none.problems[0].message, /GH_TOKEN|GITHUB_TOKEN/);
});

Deno.test("sessions list --format json: records with ref and control", async () => {
  const cwd = tree({ "c.yaml": "eventLog: { enabled: false }\n" });
  const empty = conforms(
    await cli(["-c", "c.yaml", "sessions", "list", "--format", "json"], { cwd }),
    "sessions-list",
    { ok: true },
  );
  assert.deepEqual(empty.sessions, []);
  for (const ref of ["github:octo/repo#1", "github:git.corp.example/octo/repo#2"]) {
    const r = await cli(
      ["-c", "c.yaml", "sessions", "register", ref, "--harness", "claude", "--session-id", "s1"],
      { cwd },
    );
    assert.equal(r.code, 0, r.stderr);
  }
  const paused = await cli(
    ["-c", "c.yaml", "sessions", "pause", "github:octo/repo#1", "--no-comment", "--as", "alice"],
    { cwd },
  );
  assert.equal(paused.code, 0, paused.stderr);
  const doc = conforms(
    await cli(["-c", "c.yaml", "sessions", "list", "--format", "json"], { cwd }),
    "sessions-list",
    { ok: true },
  );
  const sessions = doc.sessions as { ref: string; control: { command: string } | null }[];
  assert.deepEqual(sessions.map((s) => [s.ref, s.control?.command ?? null]), [
    ["github:octo/repo#1", "pause"], // github.com first, then Enterprise hosts
    ["github:git.corp.example/octo/repo#2", null],
  ]);
});

Deno.test("loops and loops show --format json: the loops, a position, none, bad loops", async () => {
  const cwd = tree({
    "c.yaml": [
      "eventLog: { enabled: false }",
      "loops:",
      "  mine:",
      "    start: a",
      "    nodes:",
      "      a: { actor: agent, next: { done: b } }",
      "      b: { terminal: true }",
      "",
    ].join("\n"),
  });
  const listed = conforms(
    await cli(["-c", "c.yaml", "loops", "--format", "json"], { cwd }),
    "loops",
    { ok: true },
  );
  assert.deepEqual((listed.loops as { name: string }[]).map((l) => l.name), [
    "adhoc",
    "pdlc",
    "mine",
  ]);
  const none = conforms(
    await cli(["-c", "c.yaml", "loops", "show", "github:octo/repo#1", "--format", "json"], {
      cwd,
    }),
    "loops-show",
    { ok: false },
  );
  assert.match(none.problems[0].message, /has not entered a loop yet/);
  const { BUILTIN_LOOPS, enter, advance } = await import("../loops/mod.ts");
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  const now = new Date("2026-01-02T03:04:05.000Z");
  const first = enter(adhoc, { ref: "github:octo/repo#1", now }).position;
  const at = advance(adhoc, first, { outcome: "done", kind: "agent", by: "agent", now });
  await Deno.mkdir(join(cwd, ".the-loop", "loops"), { recursive: true });
  await Deno.writeTextFile(
    join(cwd, ".the-loop", "loops", "github-octo-repo-1.json"),
    JSON.stringify(at.position),
  );
  const shown = conforms(
    await cli(["-c", "c.yaml", "loops", "show", "github:octo/repo#1", "--format", "json"], {
      cwd,
    }),
    "loops-show",
    { ok: true },
  );
  assert.deepEqual(shown.position, at.position);
  assert.equal((shown.node as { actor: string }).actor, "human");
  const bad = tree({
    "c.yaml": "loops:\n  x:\n    start: nowhere\n    nodes: { a: { terminal: true } }\n",
  });
  const refused = conforms(
    await cli(["-c", "c.yaml", "loops", "--format", "json"], { cwd: bad }),
    "loops",
    { ok: false },
  );
  assert.deepEqual(
    (refused.problems as unknown as { line: number; col: number }[]).map((p) => [p.line, p.col]),
    [[3, 12]],
  );
});

Deno.test("scenarios --format json: the envelope (config null), scenarios with their steps, or []", async () => {
  const cwd = tree({
    ".git/HEAD": "ref: refs/heads/main\n",
    "tests/a_test.ts":
      "/**\n * Feature: F\n * Requirement: R-1\n */\n/** Scenario Outline: S\n *   Given g\n *   And a\n */\n",
    "pkg/b_test.go": "// Scenario: no feature\n//   Then t\n",
  });
  const found = conforms(await cli(["scenarios", "--format", "json"], { cwd }), "scenarios", {
    ok: true,
  });
  assert.equal(found.config, null);
  assert.deepEqual(
    (found.scenarios as { file: string; steps: unknown[] }[]).map((s) => [s.file, s.steps.length]),
    [["pkg/b_test.go", 1], ["tests/a_test.ts", 2]],
  );
  const none = conforms(
    await cli(["scenarios", "--format", "json", "--glob", "nothing/**"], { cwd }),
    "scenarios",
    { ok: true },
  );
  assert.deepEqual([none.scenarios, none.globs, none.globsFrom], [[], ["nothing/**"], "flag"]);
});
