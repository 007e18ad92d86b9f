/**
 * `the-loop hooks` (the listing), `hooks points`, `config validate` over `hooks:`, and the
 * start-up rule: no command module statically imports the bundler or the executors.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { POINT_NAMES, POINTS } from "../lifecycle/sdk/mod.ts";
import { cli } from "./_test_utils.ts";
import { TAGGER, tree } from "./_test_utils.ts";

const TOKEN = "tok-7c1f2e9ab0d4-value";
const HEADER = "hdr-secret-5b8e1d";
const OPTION = "opt-value-d93a0f";

const CONFIG = `hooks:
  - name: tagger
    path: hooks/tagger.ts
    with: { tag: ${OPTION} }
    isolation: process
    permissions: { net: [api.example.com:443] }
  - name: compliance
    url: https://hooks.acme.example/the-loop?key=query-secret
    tokenEnv: ACME_TOKEN
    headers: { X-Team: ${HEADER} }
    on: [work_item_start]
    required: true
  - name: audit
    command: [./hooks/audit.sh, --strict]
    env: [AUDIT_DIR]
    timeoutSeconds: 2
    onError: suspend
    suspendMode: retry_backoff
    retryBackoffMs: [50, 250]
    suspendTimeoutMinutes: 30
  - name: old
    command: [./hooks/old.sh]
    enabled: false
`;

Deno.test("hooks: lists every entry in text and json, never a secret value", async () => {
  const cwd = tree({ "cli-config.yaml": CONFIG, "hooks/tagger.ts": TAGGER });
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml", ACME_TOKEN: TOKEN, AUDIT_DIR: "/x" };
  const text = await cli(["hooks"], { cwd, env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^4 hooks in .*cli-config\.yaml, run in this order:/);
  assert.match(text.stdout, /\ntagger \(module\)\n {2}path +hooks\/tagger\.ts \(line 2\)\n/);
  assert.match(text.stdout, /isolation +process, 128 MiB memory budget/);
  assert.match(text.stdout, /permissions +net: api\.example\.com:443/);
  assert.match(text.stdout, /on +default \(the points it implements\)/);
  assert.match(
    text.stdout,
    /compliance \(remote\)\n {2}url +https:\/\/hooks\.acme\.example\/the-loop\?…/,
  );
  assert.match(text.stdout, /required +yes/);
  assert.match(
    text.stdout,
    /required +yes: its failure refuses the operation\n {2}policy +block\n/,
  );
  assert.match(text.stdout, /\ntagger[^]*?policy +warn\n/);
  assert.match(
    text.stdout,
    /policy +suspend \(retry_backoff; retries after 50, 250 ms; escalated after 30 min\)\n/,
  );
  assert.match(text.stdout, /token +from \$ACME_TOKEN\n {2}headers +X-Team\n/);
  assert.match(text.stdout, /audit \(command\)\n {2}command +\S+\/hooks\/audit\.sh --strict/);
  assert.match(text.stdout, /timeout +2s/);
  assert.match(text.stdout, /old \(command\) {2}\[disabled\]/);

  const json = await cli(["hooks", "--format", "json"], { cwd, env });
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.equal(out.config.path, join(cwd, "cli-config.yaml"));
  assert.deepEqual(out.hooks.map((h: { name: string; kind: string }) => [h.name, h.kind]), [
    ["tagger", "module"],
    ["compliance", "remote"],
    ["audit", "command"],
    ["old", "command"],
  ]);
  const [tagger, compliance, audit, old] = out.hooks;
  // `on` is always a list: every point when `on:` is absent (onAll), else the points it names
  assert.deepEqual([tagger.isolation, tagger.options, tagger.on, tagger.onAll], [
    "process",
    ["tag"],
    [...POINT_NAMES],
    true,
  ]);
  assert.deepEqual(tagger.permissions, { net: { all: false, list: ["api.example.com:443"] } });
  assert.deepEqual([compliance.tokenEnv, compliance.headers, compliance.on, compliance.onAll], [
    "ACME_TOKEN",
    ["X-Team"],
    ["work_item_start"],
    false,
  ]);
  assert.deepEqual([compliance.required, compliance.line, compliance.col], [true, 7, 5]);
  assert.equal(compliance.onError, "block");
  assert.deepEqual([tagger.onError, tagger.required, "suspendMode" in tagger], [
    "warn",
    false,
    false,
  ]);
  assert.deepEqual(
    [audit.onError, audit.required, audit.suspendMode, audit.retryBackoffMs],
    ["suspend", false, "retry_backoff", [50, 250]],
  );
  assert.equal(audit.suspendTimeoutMinutes, 30);
  assert.deepEqual([audit.argv.slice(1), audit.env, audit.timeoutSeconds], [
    ["--strict"],
    ["AUDIT_DIR"],
    2,
  ]);
  assert.equal(old.enabled, false);
  for (const secret of [TOKEN, HEADER, OPTION, "query-secret"]) {
    assert.ok(!json.stdout.includes(secret), `json leaks ${secret}`);
    assert.ok(!text.stdout.includes(secret), `text leaks ${secret}`);
  }
});

Deno.test("hooks: no hooks declared says so and exits 0", async () => {
  const cwd = tree({ "cli-config.yaml": "polling: { intervalSeconds: 30 }\n" });
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml" };
  const text = await cli(["hooks"], { cwd, env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^no hooks declared \(.*cli-config\.yaml\)/);
  const json = await cli(["hooks", "list", "--format", "json"], { cwd, env });
  assert.deepEqual(JSON.parse(json.stdout), {
    schemaVersion: 1,
    command: "hooks",
    ok: true,
    config: { path: join(cwd, "cli-config.yaml"), source: "env", searched: [] },
    problems: [],
    hooks: [],
  });
});

Deno.test("hooks: a bad declaration exits 1 naming each problem at file:line:col", async () => {
  const cwd = tree({
    "cli-config.yaml": `hooks:
  - name: both
    path: a.ts
    url: https://x.example/
  - name: late
    command: [./x.sh]
    tokenEnv: NOPE
`,
  });
  const r = await cli(["hooks", "--format", "json"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
  });
  assert.equal(r.code, 1);
  const file = join(cwd, "cli-config.yaml");
  // stdout: the envelope, ok false, every problem (stderr: the same, for people)
  const out = JSON.parse(r.stdout);
  assert.deepEqual([out.ok, out.hooks, out.config.path], [false, [], file]);
  assert.deepEqual(out.problems.map((p: { path: string }) => p.path), [
    "hooks[0]",
    "hooks[1].tokenEnv",
  ]);
  assert.match(r.stderr, /^2 problems in the hooks declaration:/);
  assert.ok(r.stderr.includes(`${file}:2:5: hooks[0]: hook "both": has path and url;`), r.stderr);
  assert.ok(
    r.stderr.includes(`${file}:7:15: hooks[1].tokenEnv: hook "late": "tokenEnv" applies to url:`),
    r.stderr,
  );
});

Deno.test("hooks points: every point and field, decisions marked, with schemas in json", async () => {
  const text = await cli(["hooks", "points"]);
  assert.equal(text.code, 0, text.stderr);
  for (const p of POINT_NAMES) {
    assert.ok(text.stdout.includes(`\n${p}: `) || text.stdout.startsWith(`${p}: `), p);
    for (const f of POINTS[p].fields) {
      const kind = f.decision ? `decision +${JSON.stringify(f.default)}` : "fact +—";
      assert.match(
        text.stdout,
        new RegExp(`\\n${f.name} +${f.type.replace("[]", "\\[\\]")} +${kind}`),
      );
    }
  }
  assert.match(text.stdout, /\nWorkItem .*\n\nFIELD +TYPE +MEANING\nref +string/);

  const json = await cli(["hooks", "points", "--format", "json"]);
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.deepEqual(out.points.map((p: { name: string }) => p.name), [...POINT_NAMES]);
  for (const p of out.points) {
    const spec = POINTS[p.name as keyof typeof POINTS];
    assert.deepEqual(p.decisions, spec.fields.filter((f) => f.decision).map((f) => f.name));
    assert.deepEqual(
      p.fields.map((f: { name: string; decision: boolean }) => [f.name, f.decision]),
      spec.fields.map((f) => [f.name, f.decision]),
    );
    assert.equal(p.schema.title, p.name);
    for (const d of p.decisions) assert.equal(p.schema.properties[d]["x-decision"], true);
  }
  assert.equal(
    out.points[1].fields.find((f: { name: string }) => f.name === "proceed").default,
    true,
  );
  assert.deepEqual(out.schema.properties.point.enum, [...POINT_NAMES]);
  assert.ok(out.workItem.some((f: { name: string }) => f.name === "ref"));
});

Deno.test("config validate: hook declaration problems at file:line:col, with the schema's", async () => {
  const cwd = tree({
    "ok-schema.yaml": `hooks:
  - name: ftp
    url: ftp://x.example/
`,
    "both.yaml": `polling:
  intervalSeconds: sixty
hooks:
  - name: twice
    path: a.ts
    command: [./a.sh]
  - name: Bad
    command: [./x.sh]
`,
  });
  const one = await cli(["-c", "ok-schema.yaml", "config", "validate"], { cwd });
  assert.equal(one.code, 1);
  assert.equal(
    one.stderr.trim(),
    `${cwd}/ok-schema.yaml:3:10: hooks[0].url: hook "ftp": must be an https:// URL (got scheme ftp:)`,
  );
  const both = await cli(["-c", "both.yaml", "config", "validate"], { cwd });
  assert.equal(both.code, 1);
  const lines = both.stderr.trim().split("\n");
  assert.equal(lines.length, 3, both.stderr); // the bad name once, though both checks see it
  assert.match(lines[0], /both\.yaml:2:20: polling\.intervalSeconds: must be an integer/);
  assert.match(lines[1], /both\.yaml:4:5: hooks\[0\]: hook "twice": has path and command;/);
  assert.match(lines[2], /both\.yaml:7:11: hooks\[1\]\.name: /);
  const json = await cli(["-c", "both.yaml", "config", "validate", "--format", "json"], { cwd });
  const out = JSON.parse(json.stdout);
  assert.equal(out.ok, false);
  assert.deepEqual(out.problems.map((p: { line: number }) => p.line), [2, 4, 7]);
});

Deno.test("hooks: a mistyped subcommand is a usage error with a suggestion", async () => {
  const r = await cli(["hooks", "vaildate"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command 'hooks vaildate' \(did you mean validate\?\)/);
});

Deno.test("start-up: no command module statically imports the bundler or the executors", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "info",
      "--json",
      "--config",
      new URL("../deno.json", import.meta.url).pathname,
      new URL("../main.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const graph = JSON.parse(new TextDecoder().decode(out.stdout));
  type Dep = { code?: { specifier: string }; type?: { specifier: string }; isDynamic?: boolean };
  const byUrl = new Map<string, { dependencies?: Dep[] }>(
    graph.modules.map((m: { specifier: string }) => [m.specifier, m]),
  );
  const seen = new Set<string>();
  const stack = [graph.roots[0]];
  while (stack.length) {
    const url = stack.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    for (const d of byUrl.get(url)?.dependencies ?? []) {
      if (!d.isDynamic && d.code) stack.push(d.code.specifier);
    }
  }
  const heavy = [...seen].filter((u) => /esbuild|lifecycle\/executors\/module\//.test(u));
  assert.deepEqual(heavy, []);
  assert.ok([...seen].some((u) => u.endsWith("commands/hooks/mod.ts")), "the graph was walked");
});
