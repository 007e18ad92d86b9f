import assert from "node:assert/strict";
import { join } from "node:path";
import { ProblemsError } from "../errors.ts";
import { loadConfig } from "./mod.ts";
import { envOf, tempTree } from "./_test_utils.ts";

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof ProblemsError, `expected ProblemsError, got ${error}`);
  return error.message.split("\n");
}

Deno.test("no file anywhere: every default, source none, root under cwd", async () => {
  const dir = tempTree();
  const loaded = await loadConfig({ env: envOf({ HOME: join(dir, "home") }), cwd: dir });
  assert.equal(loaded.path, null);
  assert.equal(loaded.source, "none");
  assert.equal(loaded.config.state.root, join(dir, ".the-loop"));
  assert.equal(loaded.config.polling.intervalSeconds, 60);
  assert.equal(
    loaded.config.webhooks.ghWebhook.routing.control.keywords.start,
    "the-loop:start-execution",
  );
  assert.equal(loaded.config.eventLog.enabled, true);
  assert.deepEqual(loaded.config.hooks, []);
  assert.equal(loaded.locate(["polling"]), undefined);
});

Deno.test("an empty or comment-only file means all defaults", async () => {
  const dir = tempTree({ ".the-loop/cli-config.yaml": "# nothing yet\n" });
  const loaded = await loadConfig({ env: envOf({}), cwd: dir });
  assert.equal(loaded.source, "found");
  assert.equal(loaded.config.github.apiUrl, "https://api.github.com");
});

Deno.test("every problem is listed, each with file:line:col and key path", async () => {
  const dir = tempTree({
    "c.yaml": [
      "polling:",
      "  intervalSeconds: sixty",
      "  sources:",
      "    - provider: github",
      "webhooks:",
      "  ghWebhook:",
      "    routing:",
      "      runnr: tmux",
      "hooks:",
      "  - name: a",
      "    on: [work_item_start, bogus]",
    ].join("\n"),
  });
  const file = join(dir, "c.yaml");
  const lines = await problemsOf(loadConfig({ flag: file, env: envOf({}), cwd: dir }));
  assert.deepEqual(lines, [
    `${file}:2:20: polling.intervalSeconds: must be an integer ≥ 1 (got "sixty")`,
    `${file}:4:7: polling.sources[0]: missing required key "repos"`,
    `${file}:8:7: webhooks.ghWebhook.routing.runnr: unknown key "runnr" (did you mean "runner"?)`,
    `${file}:11:27: hooks[0].on[1]: "bogus" is not a lifecycle point (expected one of: ${
      "work_item_start, session_spawn, session_spawned, waiting_for_input, input_received, " +
      "phase_changed, work_item_complete"
    })`,
  ]);
});

Deno.test("an unknown key far from any known one gets no suggestion", async () => {
  const dir = tempTree({ "c.yaml": "zebra: 1\n" });
  const lines = await problemsOf(
    loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: dir }),
  );
  assert.deepEqual(lines, [`${join(dir, "c.yaml")}:1:1: zebra: unknown key "zebra"`]);
});

Deno.test("YAML syntax errors are located", async () => {
  const dir = tempTree({ "c.yaml": "polling:\n  intervalSeconds: 5\n  intervalSeconds: 6\n" });
  const lines = await problemsOf(
    loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: dir }),
  );
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    new RegExp(`^${join(dir, "c.yaml")}:3:3: YAML syntax: map keys must be unique`),
  );
});

Deno.test("a file that is not a mapping is one located problem", async () => {
  const dir = tempTree({ "c.yaml": "- a\n- b\n" });
  const lines = await problemsOf(
    loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: dir }),
  );
  assert.deepEqual(lines, [`${join(dir, "c.yaml")}:1:1: must be a mapping (got a list)`]);
});

Deno.test("an unreadable config file is an error naming the file", async () => {
  const dir = tempTree();
  Deno.mkdirSync(join(dir, ".the-loop/cli-config.yaml"), { recursive: true });
  const lines = await problemsOf(loadConfig({ env: envOf({}), cwd: dir }));
  assert.match(lines[0], new RegExp(`^${join(dir, ".the-loop/cli-config.yaml")}: cannot read`));
});

Deno.test("relative paths resolve against the file's directory, ~ against $HOME", async () => {
  const dir = tempTree({
    "ops/cfg.yaml": "eventLog:\n  path: logs/e.jsonl\npolling:\n  stateFile: ~/ps.json\n",
  });
  const loaded = await loadConfig({
    flag: "ops/cfg.yaml",
    env: envOf({ HOME: "/home/me" }),
    cwd: dir,
  });
  assert.equal(loaded.path, join(dir, "ops/cfg.yaml"));
  assert.equal(loaded.baseDir, join(dir, "ops"));
  assert.equal(loaded.config.eventLog.path, join(dir, "ops/logs/e.jsonl"));
  assert.equal(loaded.config.polling.stateFile, "/home/me/ps.json");
});

Deno.test("spawnWorkdir: empty (default) is the daemon's cwd; a relative one is the file's", async () => {
  const dir = tempTree({
    "ops/a.yaml": "{}\n",
    "ops/b.yaml": "webhooks: { ghWebhook: { routing: { spawnWorkdir: work } } }\n",
  });
  const env = envOf({});
  const unset = await loadConfig({ flag: "ops/a.yaml", env, cwd: dir });
  assert.equal(unset.config.webhooks.ghWebhook.routing.spawnWorkdir, "");
  const set = await loadConfig({ flag: "ops/b.yaml", env, cwd: dir });
  assert.equal(set.config.webhooks.ghWebhook.routing.spawnWorkdir, join(dir, "ops/work"));
});

Deno.test("default root: the file's own .the-loop directory, else .the-loop beside it", async () => {
  const dir = tempTree({ ".the-loop/cli-config.yaml": "{}\n", "ops/cfg.yaml": "{}\n" });
  const inDot = await loadConfig({ env: envOf({}), cwd: dir });
  assert.equal(inDot.config.state.root, join(dir, ".the-loop"));
  const beside = await loadConfig({ flag: join(dir, "ops/cfg.yaml"), env: envOf({}), cwd: dir });
  assert.equal(beside.config.state.root, join(dir, "ops/.the-loop"));
});

Deno.test("state.root fills every generated path; explicit paths win", async () => {
  const dir = tempTree({
    "c.yaml": "state:\n  root: run\nwebhooks:\n  ghWebhook:\n    pidfile: /var/run/w.pid\n",
  });
  const { config } = await loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: "/" });
  const root = join(dir, "run");
  const routing = config.webhooks.ghWebhook.routing;
  assert.deepEqual({
    root: config.state.root,
    registryDir: routing.registryDir,
    pollStateFile: config.polling.stateFile,
    eventLog: config.eventLog.path,
    webhookPidfile: config.webhooks.ghWebhook.pidfile,
    pollPidfile: config.polling.pidfile,
    workspaceRoot: routing.workspace.root,
  }, {
    root,
    registryDir: join(root, "sessions"),
    pollStateFile: join(root, "sessions/poll-state.json"),
    eventLog: join(root, "logs/events.jsonl"),
    webhookPidfile: "/var/run/w.pid",
    pollPidfile: join(root, "poll.pid"),
    workspaceRoot: join(root, "workspaces"),
  });
});

Deno.test("github.apiUrl defaults to $GITHUB_API_URL when set; the file wins over it", async () => {
  const dir = tempTree({ "c.yaml": "github:\n  apiUrl: https://ghe.example/api/v3\n" });
  const env = envOf({ GITHUB_API_URL: "http://127.0.0.1:9999" });
  assert.equal((await loadConfig({ env, cwd: dir })).config.github.apiUrl, "http://127.0.0.1:9999");
  const fromFile = await loadConfig({ flag: join(dir, "c.yaml"), env, cwd: dir });
  assert.equal(fromFile.config.github.apiUrl, "https://ghe.example/api/v3");
});

Deno.test("hook entries are kept as written; sources and collaborators are filled", async () => {
  const dir = tempTree({
    "c.yaml": [
      "hooks:",
      "  - name: policy",
      "    path: hooks/p.ts",
      "polling:",
      "  sources:",
      "    - { provider: github, repos: [o/r] }",
      "collaborators:",
      "  - { handle: '@me', roles: [engineer] }",
    ].join("\n"),
  });
  const { config } = await loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: dir });
  assert.deepEqual(config.hooks, [{ name: "policy", path: "hooks/p.ts" }]);
  assert.deepEqual(config.polling.sources[0], {
    provider: "github",
    repos: ["o/r"],
    monitor: { issues: true, pullRequests: true },
    label: "",
    ghBinary: "gh",
  });
  assert.equal(config.collaborators[0].kind, "individual");
  assert.deepEqual(config.collaborators[0].notifications, { enabled: true, channels: [] });
});

Deno.test("locate points into the file", async () => {
  const dir = tempTree({
    "c.yaml":
      "hooks:\n  - name: a\n    command: [x]\n  - name: b\n    on:\n      - session_spawn\n",
  });
  const loaded = await loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: dir });
  assert.deepEqual(loaded.locate(["hooks", 1, "on", 0]), { line: 6, col: 9 });
  assert.deepEqual(loaded.locate(["hooks", 0, "command"]), { line: 3, col: 14 });
  assert.equal(loaded.locate(["hooks", 5]), undefined);
});
