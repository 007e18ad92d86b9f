import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_test_utils.ts";

/** A real temp dir holding `files` (relative path → content). */
function tree(files: Record<string, string> = {}): string {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "the-loop-config-cli-" }));
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.writeTextFileSync(path, text);
  }
  return dir;
}

async function showJson(args: string[], opts: { cwd: string; env?: Record<string, string> }) {
  const r = await cli([...args, "config", "show", "--format", "json"], opts);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

Deno.test("config show: no file found by lookup means every default (source none)", async () => {
  const cwd = tree();
  const shown = await showJson([], { cwd, env: { HOME: join(cwd, "home") } });
  assert.equal(shown.path, null);
  assert.equal(shown.source, "none");
  assert.equal(shown.resolved.state.root, join(cwd, ".the-loop"));
  assert.equal(shown.resolved.eventLog.path, join(cwd, ".the-loop/logs/events.jsonl"));
  assert.equal(shown.resolved.webhooks.ghWebhook.port, 8787);
  const yaml = await cli(["config", "show"], { cwd, env: { HOME: join(cwd, "home") } });
  assert.equal(yaml.code, 0);
  const parents = cwd.split("/").filter(Boolean).length;
  assert.equal(
    yaml.stdout.split("\n")[0],
    `# from: no config file found in ./.the-loop and ${parents} parent folders up to /, ` +
      "then ~/.the-loop; defaults apply",
  );
  assert.match(yaml.stdout, /\n {4}port: 8787\n/);
});

Deno.test("resolution order: --config > $THE_LOOP_CLI_CONFIG > ./.the-loop > ~/.the-loop", async () => {
  const cwd = tree({
    "home/.the-loop/cli-config.yaml": "polling: { intervalSeconds: 1 }\n",
    "flag.yaml": "polling: { intervalSeconds: 4 }\n",
    "env.yaml": "polling: { intervalSeconds: 3 }\n",
  });
  const home = join(cwd, "home");
  const run = (args: string[], env: Record<string, string> = {}) =>
    showJson(args, { cwd, env: { HOME: home, ...env } });

  let shown = await run([]);
  assert.deepEqual([shown.source, shown.path, shown.resolved.polling.intervalSeconds], [
    "home",
    join(home, ".the-loop/cli-config.yaml"),
    1,
  ]);
  const yaml = await cli(["config", "show"], { cwd, env: { HOME: home } });
  assert.equal(
    yaml.stdout.split("\n")[0],
    `# from: ${home}/.the-loop/cli-config.yaml (~/.the-loop)`,
  );

  Deno.mkdirSync(join(cwd, ".the-loop"));
  Deno.writeTextFileSync(
    join(cwd, ".the-loop/cli-config.yaml"),
    "polling: { intervalSeconds: 2 }\n",
  );
  shown = await run([]);
  assert.deepEqual([shown.source, shown.resolved.polling.intervalSeconds], ["found", 2]);

  shown = await run([], { THE_LOOP_CLI_CONFIG: "env.yaml" });
  assert.deepEqual([shown.source, shown.path, shown.resolved.polling.intervalSeconds], [
    "env",
    join(cwd, "env.yaml"),
    3,
  ]);

  shown = await run(["--config", "flag.yaml"], { THE_LOOP_CLI_CONFIG: "env.yaml" });
  assert.deepEqual([shown.source, shown.path, shown.resolved.polling.intervalSeconds], [
    "flag",
    join(cwd, "flag.yaml"),
    4,
  ]);
});

Deno.test("a config file named explicitly but missing is an error, exit 1", async () => {
  const cwd = tree({ ".the-loop/cli-config.yaml": "{}\n" }); // lookup would find this one
  const flag = await cli(["-c", "nope.yaml", "config", "show"], { cwd });
  assert.equal(flag.code, 1);
  assert.equal(flag.stdout, "");
  assert.equal(
    flag.stderr,
    `the-loop: config file not found: ${cwd}/nope.yaml (from --config); ` +
      "create one with `the-loop init`\n",
  );
  const env = await cli(["config", "validate"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "/no/x.yaml" },
  });
  assert.equal(env.code, 1);
  assert.match(env.stderr, /config file not found: \/no\/x\.yaml \(from \$THE_LOOP_CLI_CONFIG\)/);
});

const INVALID = [
  "version: 0.1.0",
  "polling:",
  "  intervalSeconds: sixty",
  "  sources:",
  "    - provider: github",
  "      repos: [octo/repo]",
  "      monitr: { issues: true }",
  "eventLog:",
  "  enabled: maybe",
  "webhooks: { ghWebhook: { port: 0 } }",
].join("\n");

Deno.test("config validate lists every problem as file:line:col: key: message, exit 1", async () => {
  const cwd = tree({ ".the-loop/cli-config.yaml": INVALID });
  const file = join(cwd, ".the-loop/cli-config.yaml");
  const r = await cli(["config", "validate"], { cwd });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.deepEqual(r.stderr.trimEnd().split("\n"), [
    `${file}:3:20: polling.intervalSeconds: must be an integer ≥ 1 (got "sixty")`,
    `${file}:7:7: polling.sources[0].monitr: unknown key "monitr" (did you mean "monitor"?)`,
    `${file}:9:12: eventLog.enabled: must be true or false (got "maybe")`,
    `${file}:10:32: webhooks.ghWebhook.port: must be an integer from 1 to 65535 (got 0)`,
  ]);
  const show = await cli(["config", "show"], { cwd });
  assert.equal(show.code, 1);
  assert.equal(show.stderr.trimEnd().split("\n").length, 4);
});

Deno.test("config validate --format json reports problems on stdout too", async () => {
  const cwd = tree({ "c.yaml": "polling: { intervalSeconds: 0 }\n" });
  const r = await cli(["--config", "c.yaml", "config", "validate", "--format", "json"], { cwd });
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.equal(out.ok, false);
  assert.deepEqual(out.problems, [{
    file: join(cwd, "c.yaml"),
    line: 1,
    col: 29,
    path: "polling.intervalSeconds",
    message: "must be an integer ≥ 1 (got 0)",
  }]);
  assert.match(r.stderr, /c\.yaml:1:29: polling\.intervalSeconds: must be an integer ≥ 1/);
});

Deno.test("config validate: ok: PATH on success (text and json)", async () => {
  const cwd = tree({ "c.yaml": "eventLog: { enabled: false }\n" });
  const text = await cli(["--config", "c.yaml", "config", "validate"], { cwd });
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, `ok: ${cwd}/c.yaml\n`);
  const json = await cli(["-c", "c.yaml", "config", "validate", "--format", "json"], { cwd });
  assert.equal(json.code, 0);
  assert.deepEqual(JSON.parse(json.stdout), {
    schemaVersion: 1,
    command: "config validate",
    ok: true,
    config: { path: join(cwd, "c.yaml"), source: "flag", searched: [] },
    problems: [],
    path: join(cwd, "c.yaml"),
    source: "flag",
    warnings: [],
  });
});

Deno.test("paths: relative to the file's dir, state.root fills the rest, explicit wins", async () => {
  const cwd = tree({
    "ops/cfg.yaml": [
      "state: { root: var }",
      "eventLog: { path: /abs/events.jsonl }",
      "webhooks: { ghWebhook: { routing: { registryDir: reg } } }",
    ].join("\n"),
  });
  const { resolved: config } = await showJson(["--config", "ops/cfg.yaml"], { cwd });
  const root = join(cwd, "ops/var");
  assert.equal(config.state.root, root);
  assert.equal(config.eventLog.path, "/abs/events.jsonl");
  assert.equal(config.webhooks.ghWebhook.routing.registryDir, join(cwd, "ops/reg"));
  assert.equal(config.webhooks.ghWebhook.pidfile, join(root, "gh-webhook.pid"));
  assert.equal(config.polling.stateFile, join(root, "sessions/poll-state.json"));
  assert.equal(config.polling.pidfile, join(root, "poll.pid"));
});

Deno.test("github.apiUrl defaults to $GITHUB_API_URL when it is set", async () => {
  const cwd = tree();
  const set = await showJson([], { cwd, env: { GITHUB_API_URL: "https://ghe.example/api/v3" } });
  assert.equal(set.resolved.github.apiUrl, "https://ghe.example/api/v3");
  const unset = await showJson([], { cwd });
  assert.equal(unset.resolved.github.apiUrl, "https://api.github.com");
});

Deno.test("a hook's on: naming an event type is 'not a lifecycle point', located", async () => {
  const cwd = tree({
    "cli-config.yaml": "hooks:\n  - name: a\n    path: a.ts\n  - name: b\n    path: b.ts\n" +
      "    on: [work_item_start, poll.cycle]\n",
  });
  const r = await cli(["-c", "cli-config.yaml", "config", "validate"], { cwd });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /cli-config\.yaml:6:27: hooks\[1\]\.on\[1\]: "poll\.cycle" is not a lifecycle point \(expected one of: work_item_start, session_spawn, .*work_item_complete\)\n/,
  );
});

Deno.test("$GITHUB_API_URL that is not a URL fails config validate, exit 1", async () => {
  const cwd = tree();
  const r = await cli(["config", "validate"], { cwd, env: { GITHUB_API_URL: "garbage" } });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    "$GITHUB_API_URL: must be an https:// URL (http:// only to 127.0.0.1, localhost or [::1]) " +
      '(got "garbage"); fix it, unset it, or set github.apiUrl in the config file\n',
  );
  const local = await cli(["config", "validate"], {
    cwd,
    env: { GITHUB_API_URL: "http://127.0.0.1:8080" },
  });
  assert.equal(local.code, 0, local.stderr);
});

Deno.test("a token pasted as github.tokenEnv is refused by show and validate, never printed", async () => {
  const token = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"; // token-shaped, not a real one
  const cwd = tree({ ".the-loop/cli-config.yaml": `github:\n  tokenEnv: ${token}\n` });
  const file = join(cwd, ".the-loop/cli-config.yaml");
  for (const args of [["config", "show"], ["config", "validate", "--format", "json"], ["hooks"]]) {
    const r = await cli(args, { cwd });
    assert.equal(r.code, 1, args.join(" "));
    assert.ok(!(r.stdout + r.stderr).includes(token), args.join(" "));
    assert.match(
      r.stderr,
      new RegExp(
        `^${file}:2:13: github\\.tokenEnv: this looks like a token, not a variable name — ` +
          "put the NAME of the environment variable that holds it \\(e\\.g\\. GITHUB_TOKEN\\)\n",
      ),
    );
  }
});

Deno.test("config validate lists hook declaration problems beside schema problems", async () => {
  const cwd = tree({
    "c.yaml": [
      'eventLog: { path: "" }',
      "hooks:",
      "  - name: both",
      "    path: a.ts",
      "    url: https://h.example/rpc",
    ].join("\n"),
  });
  const r = await cli(["-c", "c.yaml", "config", "validate"], { cwd });
  assert.equal(r.code, 1);
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 2, r.stderr);
  assert.equal(
    lines[0],
    `${cwd}/c.yaml:1:19: eventLog.path: must be a non-empty string (got "")`,
  );
  assert.match(lines[1], new RegExp(`^${cwd}/c\\.yaml:3:5: hooks\\[0\\]`));
});

Deno.test("run from a subfolder: the repo's .the-loop config is found, paths resolve beside it", async () => {
  const repo = tree({
    ".the-loop/cli-config.yaml":
      "state: { root: run }\nhooks:\n  - { name: audit, path: h/a.ts }\n",
    "docs/guide.md": "",
  });
  const cwd = join(repo, "docs");
  const file = join(repo, ".the-loop/cli-config.yaml");
  const env = { HOME: join(repo, "home") };
  const shown = await showJson([], { cwd, env });
  assert.deepEqual([shown.path, shown.source], [file, "found"]);
  assert.deepEqual(shown.searched, [join(cwd, ".the-loop"), join(repo, ".the-loop")]);
  assert.equal(shown.resolved.state.root, join(repo, ".the-loop/run"));
  assert.equal(shown.resolved.eventLog.path, join(repo, ".the-loop/run/logs/events.jsonl"));
  const yaml = await cli(["config", "show"], { cwd, env });
  assert.equal(yaml.stdout.split("\n")[0], `# from: ${file} (found in ../.the-loop)`);
  const validate = await cli(["config", "validate"], { cwd, env });
  assert.equal(validate.code, 0, validate.stderr);
  assert.equal(validate.stdout, `ok: ${file}\n`);
  const hooks = await cli(["hooks", "--format", "json"], { cwd, env });
  assert.equal(hooks.code, 0, hooks.stderr);
  assert.equal(JSON.parse(hooks.stdout).hooks[0].target, join(repo, ".the-loop/h/a.ts"));
});

Deno.test("config validate without any config file says where it looked", async () => {
  const cwd = tree({ "a/b/.keep": "" });
  const sub = join(cwd, "a/b");
  const r = await cli(["config", "validate"], { cwd: sub, env: { HOME: join(cwd, "home") } });
  assert.equal(r.code, 0, r.stderr);
  const parents = sub.split("/").filter(Boolean).length;
  assert.equal(
    r.stdout,
    `ok: no config file found in ./.the-loop and ${parents} parent folders up to /, ` +
      "then ~/.the-loop; defaults apply\n",
  );
  const json = await cli(["config", "validate", "--format", "json"], {
    cwd: sub,
    env: { HOME: join(cwd, "home") },
  });
  const out = JSON.parse(json.stdout);
  assert.deepEqual([out.ok, out.path, out.source], [true, null, "none"]);
  assert.equal(out.searched[0], join(sub, ".the-loop"));
  assert.equal(out.searched.at(-1), join(cwd, "home/.the-loop"));
});

Deno.test("config validate: a YAML tag beyond the core schema is refused, located", async () => {
  const cwd = tree({
    "c.yaml": [
      "hooks:",
      "  - name: r",
      "    url: https://h.example/rpc",
      '    headers: !!omap [{Authorization: "Bearer abcdefghijklmnop1234"}, {X-Team: x}]',
    ].join("\n"),
  });
  const r = await cli(["-c", "c.yaml", "config", "validate"], { cwd });
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `${cwd}/c.yaml:4:14: hooks[0].headers: the tag !!omap is not allowed: the config is plain ` +
      "YAML (strings, numbers, true/false, null, mappings and lists); remove the tag\n",
  );
});

Deno.test("token-shaped keys, header names and env grants are masked and refused", async () => {
  const token = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"; // token-shaped, not a real one
  const cwd = tree({
    "c.yaml": [
      `github: { ${token}: 1 }`,
      "hooks:",
      "  - name: m",
      "    path: m.ts",
      `    permissions: { env: [${token}], net: ["${token}.example:443"] }`,
      "  - name: r",
      "    url: https://h.example/rpc",
      `    headers: { ${token}: x }`,
    ].join("\n"),
  });
  for (const args of [["config", "validate"], ["config", "validate", "--format", "json"]]) {
    const r = await cli(["-c", "c.yaml", ...args], { cwd });
    assert.equal(r.code, 1);
    assert.ok(!(r.stdout + r.stderr).includes(token), r.stdout + r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes(token.slice(0, 20)), r.stdout + r.stderr);
  }
  const r = await cli(["-c", "c.yaml", "config", "validate"], { cwd });
  assert.deepEqual(r.stderr.trimEnd().split("\n"), [
    `${cwd}/c.yaml:1:11: github.[redacted]: unknown key "[redacted]"`,
    `${cwd}/c.yaml:5:26: hooks[0].permissions.env[0]: this looks like a token, not a variable ` +
    "name — put the NAME of the environment variable that holds it (e.g. MY_HOOK_TOKEN)",
    `${cwd}/c.yaml:5:75: hooks[0].permissions.net[0]: hook "m": a net grant is host or ` +
    'host:port, e.g. roster.acme.example:443 (got "[redacted].example:443")',
    `${cwd}/c.yaml:8:58: hooks[1].headers.[redacted]: hook "r": this header name looks like a ` +
    "token: credentials never live in the config; name the token's variable in tokenEnv",
  ]);
});

Deno.test("config validate warns of a bot in authorizedUsers (stderr, JSON), exit 0", async () => {
  const cwd = tree({
    "c.yaml": "webhooks:\n  ghWebhook:\n    routing:\n      authorizedUsers:\n" +
      '        - alice\n        - dependabot[bot]\n      authorizedBots: ["renovate[bot]"]\n',
  });
  const file = join(cwd, "c.yaml");
  const text = await cli(["-c", "c.yaml", "config", "validate"], { cwd });
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, `ok: ${file}\n`);
  assert.equal(
    text.stderr,
    `${file}:6:11: webhooks.ghWebhook.routing.authorizedUsers[1]: warning: dependabot[bot] ` +
      "is a bot; bots are authorized only through routing.authorizedBots\n",
  );
  const json = await cli(["-c", "c.yaml", "config", "validate", "--format", "json"], { cwd });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.ok, true);
  assert.deepEqual(doc.warnings, [{
    file,
    line: 6,
    col: 11,
    path: "webhooks.ghWebhook.routing.authorizedUsers[1]",
    message: "dependabot[bot] is a bot; bots are authorized only through routing.authorizedBots",
  }]);
  // no bot among the users: no warning
  const clean = tree({
    "c.yaml": "webhooks: { ghWebhook: { routing: { authorizedUsers: [alice] } } }\n",
  });
  const quiet = await cli(["-c", "c.yaml", "config", "validate", "--format", "json"], {
    cwd: clean,
  });
  assert.deepEqual([quiet.code, quiet.stderr, JSON.parse(quiet.stdout).warnings], [0, "", []]);
});
