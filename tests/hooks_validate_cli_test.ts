/**
 * `the-loop hooks validate`: real module workers, real programs, a real loopback server.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_test_utils.ts";
import { freePort, remoteServer, TAGGER, tree } from "./_test_utils.ts";

/** The line of `stdout` about hook `name`. */
function lineOf(stdout: string, name: string): string {
  const found = stdout.split("\n").filter((l) => l.split(" ").filter(Boolean)[1] === name);
  assert.equal(found.length, 1, `one line about ${name} in:\n${stdout}`);
  return found[0];
}

const PASS_SH = "#!/bin/sh\ncat >/dev/null\n";
const TOKEN = "validate-token-3e9f1c";

Deno.test("hooks validate: every kind loads; text and json say ok", async () => {
  const cwd = tree({
    "cli-config.yaml": `hooks:
  - name: tagger
    path: hooks/tagger.ts
  - name: boxed
    path: hooks/tagger.ts
    isolation: process
    on: [session_spawn]
  - name: audit
    command: [./hooks/pass.sh]
  - name: compliance
    url: https://hooks.acme.example/
    tokenEnv: ACME_TOKEN
  - name: off
    path: hooks/missing.ts
    enabled: false
`,
    "hooks/tagger.ts": TAGGER,
    "hooks/pass.sh": [PASS_SH, 0o755],
  });
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml", ACME_TOKEN: TOKEN };
  const text = await cli(["hooks", "validate"], { cwd, env });
  assert.equal(text.code, 0, text.stderr);
  // lines come as hooks finish: found by name, each with its load time
  assert.match(
    lineOf(text.stdout, "tagger"),
    /^ok {4}tagger \(module\): loaded in its worker sandbox; called at work_item_start, session_spawn \[\d+ ms\]$/,
  );
  assert.match(
    lineOf(text.stdout, "boxed"),
    /^ok {4}boxed \(module\): loaded in its process sandbox; called at session_spawn \[\d+ ms\]$/,
  );
  assert.match(
    lineOf(text.stdout, "audit"),
    /^ok {4}audit \(command\): \/\S+\/hooks\/pass\.sh is executable; called at every point \[\d+ ms\]$/,
  );
  assert.match(
    lineOf(text.stdout, "compliance"),
    /^ok {4}compliance \(remote\): \$ACME_TOKEN is set/,
  );
  assert.match(lineOf(text.stdout, "off"), /^skip {2}off \(module\): disabled: not loaded$/);
  const lines = text.stdout.trim().split("\n");
  assert.equal(lines.length, 7, text.stdout);
  assert.match(lines[5], /^ok {4}type check: 1 module hook file against @the-loop\/hooks/);
  assert.equal(
    lines[6],
    "ok: 4 hooks (1 disabled, not loaded; remotes not contacted; add --online to call their /health)",
  );
  const json = await cli(["hooks", "validate", "--format", "json"], { cwd, env });
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.deepEqual([out.schemaVersion, out.command, out.ok, out.problems], [
    1,
    "hooks validate",
    true,
    [],
  ]);
  assert.equal(out.config.path, join(cwd, "cli-config.yaml"));
  assert.ok(out.hooks.slice(0, 4).every((h: { loadMs: unknown }) => typeof h.loadMs === "number"));
  assert.deepEqual(
    out.hooks.map((
      h: { name: string; ok: boolean; problems: unknown[] },
    ) => [h.name, h.ok, h.problems.length]),
    [["tagger", true, 0], ["boxed", true, 0], ["audit", true, 0], ["compliance", true, 0], [
      "off",
      true,
      0,
    ]],
  );
  assert.ok(!json.stdout.includes(TOKEN));
});

Deno.test("hooks validate: every broken hook is listed at once, each at file:line:col", async () => {
  const cwd = tree({
    "cli-config.yaml": `hooks:
  - name: broken
    path: hooks/broken.ts
  - name: fine
    path: hooks/tagger.ts
  - name: noexec
    command: [./hooks/noexec.sh]
  - name: tokenless
    url: https://hooks.acme.example/
    tokenEnv: UNSET_TOKEN_VAR
  - name: claims
    path: hooks/tagger.ts
    on: [phase_changed]
`,
    "hooks/broken.ts": "export default class {\n  work_item_start( {\n}\n",
    "hooks/tagger.ts": TAGGER,
    "hooks/noexec.sh": [PASS_SH, 0o644],
  });
  const file = join(cwd, "cli-config.yaml");
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml" };
  const r = await cli(["hooks", "validate"], { cwd, env });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^FAIL {2}broken \(module\): 1 problem\(s\), below \[\d+ ms\]$/m);
  assert.match(r.stdout, /^ok {4}fine \(module\)/m);
  // the hook that does not parse is left out of the type check; the others are checked
  assert.match(r.stdout, /^ok {4}type check: 1 module hook file against/m);
  const err = r.stderr.trim().split("\n");
  assert.equal(err[0], "hooks validate: 4 problems in 4 hooks:", r.stderr);
  assert.match(
    err[1],
    new RegExp(`^  ${file}:2:5: hooks\\[0\\]: hook "broken": .*broken\\.ts:\\d+:\\d+: Expected`),
  );
  assert.match(
    err[2],
    new RegExp(`^  ${file}:6:5: hooks\\[2\\]: hook "?noexec"?: .*noexec\\.sh is not executable`),
  );
  assert.match(
    err[3],
    new RegExp(
      `^  ${file}:8:5: hooks\\[3\\]: hook "tokenless": environment variable UNSET_TOKEN_VAR \\(tokenEnv\\) is not set`,
    ),
  );
  assert.match(
    err[4],
    new RegExp(
      `^  ${file}:11:5: hooks\\[4\\]: hook "claims": on names points the hook does not handle: phase_changed`,
    ),
  );

  const json = await cli(["hooks", "validate", "--format", "json"], { cwd, env });
  assert.equal(json.code, 1);
  const out = JSON.parse(json.stdout);
  assert.equal(out.ok, false);
  assert.deepEqual(out.hooks.map((h: { ok: boolean }) => h.ok), [false, true, false, false, false]);
  assert.deepEqual(out.hooks[3].problems[0].line, 8);
});

Deno.test("hooks validate: a module that implements no point is a problem", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: idle\n    path: idle.ts\n",
    "idle.ts":
      `import { LifecycleHooks } from "@the-loop/hooks";\nexport default class Idle extends LifecycleHooks {}\n`,
  });
  const r = await cli(["hooks", "validate"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
  });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /cli-config\.yaml:2:5: hooks\[0\]: hook "idle": implements no lifecycle point/,
  );
});

Deno.test("hooks validate: a declaration that does not parse is reported, json too", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: x\n    path: a.ts\n    url: https://x.example/\n",
  });
  const r = await cli(["hooks", "validate", "--format", "json"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
  });
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.deepEqual([out.ok, out.hooks, out.problems[0].line, out.problems[0].col], [
    false,
    [],
    2,
    5,
  ]);
  assert.match(r.stderr, /cli-config\.yaml:2:5: hooks\[0\]: hook "x": has path and url/);
});

Deno.test("hooks validate --online: a live serveHooks answers /health, a closed port does not", async () => {
  Deno.env.set("HOOKS_CLI_SERVER_TOKEN", TOKEN);
  const server = remoteServer({ tokenEnv: "HOOKS_CLI_SERVER_TOKEN" });
  try {
    const closed = freePort();
    const cwd = tree({
      "cli-config.yaml": `hooks:
  - name: live
    url: ${server.url}
    tokenEnv: LIVE_TOKEN
  - name: gone
    url: http://127.0.0.1:${closed}/hooks
`,
    });
    const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml", LIVE_TOKEN: TOKEN };
    const offline = await cli(["hooks", "validate"], { cwd, env });
    assert.equal(offline.code, 0, offline.stderr);

    const r = await cli(["hooks", "validate", "--online"], { cwd, env });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^ok {4}live \(remote\): \$LIVE_TOKEN is set; \/health answered 200 in \d+ ms/m,
    );
    assert.match(r.stdout, /^FAIL {2}gone \(remote\)/m);
    assert.match(
      r.stderr,
      new RegExp(
        `cli-config\\.yaml:5:5: hooks\\[1\\]: hook "gone" \\(http://127\\.0\\.0\\.1:${closed}/hooks\\): could not reach the endpoint`,
      ),
    );
    assert.ok(!r.stdout.includes(TOKEN) && !r.stderr.includes(TOKEN));

    const json = await cli(["hooks", "validate", "--online", "--format", "json"], { cwd, env });
    const out = JSON.parse(json.stdout);
    assert.deepEqual([out.online, out.hooks[0].ok, out.hooks[1].ok], [true, true, false]);
  } finally {
    await server.close();
    Deno.env.delete("HOOKS_CLI_SERVER_TOKEN");
  }
});

const QUICK = `import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
export default class Quick extends LifecycleHooks {
  override work_item_start(_ctx: WorkItemStart) {}
}
`;

Deno.test("hooks validate: a hook whose top level hangs holds back no other hook's line", async () => {
  const quick = ["q1", "q2", "q3", "q4", "q5"];
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: hang\n    path: hang.ts\n" +
      quick.map((q) => `  - name: ${q}\n    path: ${q}.ts\n`).join(""),
    "hang.ts": `await new Promise(() => {});\n${QUICK}`,
    ...Object.fromEntries(quick.map((q) => [`${q}.ts`, QUICK])),
  });
  const r = await cli(["hooks", "validate", "--no-typecheck"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
  });
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stdout.trim().split("\n");
  const hang = lines.findIndex((l) => /^FAIL {2}hang \(module\)/.test(l));
  assert.ok(hang >= 0, r.stdout);
  for (const q of quick) {
    const at = lines.findIndex((l) => l.startsWith(`ok    ${q} (module)`));
    assert.ok(at >= 0 && at < hang, `${q} printed before hang's failure:\n${r.stdout}`);
  }
  assert.match(r.stderr, /hook "hang"/);
  assert.match(r.stderr, /hooks validate: 1 problem in 1 hook/);
});

Deno.test("hooks validate: piped output has no progress line and no escape codes", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: a\n    path: a.ts\n  - name: b\n    path: b.ts\n",
    "a.ts": QUICK,
    "b.ts": "export default class {\n  work_item_start( {\n}\n",
  });
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml", TERM: "xterm-256color" };
  for (const format of ["text", "json"]) {
    const r = await cli(["hooks", "validate", "--format", format], { cwd, env });
    assert.equal(r.code, 1);
    const all = r.stdout + r.stderr;
    assert.ok(!all.includes("\x1b") && !all.includes("\r"), JSON.stringify(r));
    assert.ok(!/loading hooks|type-checking/.test(r.stdout + r.stderr), r.stderr);
  }
});

Deno.test("hooks validate --format json: one document, the shared envelope, problems flattened", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: a\n    path: a.ts\n  - name: gone\n    path: gone.ts\n",
    "a.ts": QUICK,
  });
  const r = await cli(["hooks", "validate", "--format", "json", "--no-typecheck"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
  });
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out).slice(0, 7), [
    "schemaVersion",
    "command",
    "ok",
    "config",
    "problems",
    "online",
    "hooks",
  ]);
  assert.deepEqual([out.schemaVersion, out.command, out.ok], [1, "hooks validate", false]);
  assert.equal(out.problems.length, 1);
  assert.deepEqual(out.problems, out.hooks[1].problems);
  assert.deepEqual(out.hooks.map((h: { name: string; ok: boolean }) => [h.name, h.ok]), [
    ["a", true],
    ["gone", false],
  ]);
  assert.ok(out.hooks.every((h: { loadMs: number }) => Number.isInteger(h.loadMs)));
  assert.deepEqual(out.typecheck, { ran: false, note: "skipped: --no-typecheck" });
});

Deno.test("hooks validate --format json: an unreadable or invalid config still prints the document", async () => {
  const cwd = tree({ "broken.yaml": "hooks: [\n  - name: x\n" });
  for (const config of ["broken.yaml", "missing.yaml"]) {
    const r = await cli(["hooks", "validate", "--format", "json"], {
      cwd,
      env: { THE_LOOP_CLI_CONFIG: config },
    });
    assert.equal(r.code, 1, config);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(
      [out.schemaVersion, out.command, out.ok, out.hooks],
      [1, "hooks validate", false, []],
    );
    assert.ok(out.problems.length >= 1 && typeof out.problems[0].message === "string");
    assert.ok("config" in out);
  }
});
