/**
 * `the-loop hooks validate`: real module workers, real programs, a real loopback server.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_test_utils.ts";
import { freePort, remoteServer, TAGGER, tree } from "./_test_utils.ts";

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
  const lines = text.stdout.trim().split("\n");
  assert.match(
    lines[0],
    /^ok {4}tagger \(module\): loaded in its worker sandbox; called at work_item_start, session_spawn$/,
  );
  assert.match(
    lines[1],
    /^ok {4}boxed \(module\): loaded in its process sandbox; called at session_spawn$/,
  );
  assert.match(
    lines[2],
    /^ok {4}audit \(command\): \/\S+\/hooks\/pass\.sh is executable; called at every point$/,
  );
  assert.match(lines[3], /^ok {4}compliance \(remote\): \$ACME_TOKEN is set/);
  assert.match(lines[4], /^skip {2}off \(module\): disabled: not loaded$/);
  assert.equal(
    lines[5],
    "ok: 4 hooks (1 disabled, not loaded; remotes not contacted; add --online to call their /health)",
  );
  const json = await cli(["hooks", "validate", "--format", "json"], { cwd, env });
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.equal(out.ok, true);
  assert.equal(out.config, join(cwd, "cli-config.yaml"));
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
  assert.match(r.stdout, /^FAIL {2}broken \(module\): 1 problem\(s\), below$/m);
  assert.match(r.stdout, /^ok {4}fine \(module\)/m);
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
