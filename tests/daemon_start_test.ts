/**
 * What both daemons check before they run, and what the dry run shows with sessions behind the
 * router: a hooks declaration that does not load stops `poll start` and `gh-webhook start`
 * (exit 1, naming the hook); `poll start --dry-run` shows the prompt a spawn would send, after
 * the hooks had their say, and spawns nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathWithFakes, readHarnessLog } from "./fake_harness/mod.ts";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, tree } from "./_test_utils.ts";

const TOKEN = "t0k-daemon-start";
const LABEL = "the-loop: auto-execute";

function config(apiUrl: string, hooks = ""): string {
  return [
    `github: { apiUrl: "${apiUrl}", tokenEnv: START_TOKEN }`,
    "webhooks:",
    "  ghWebhook:",
    "    routing:",
    "      enabled: true",
    "      authorizedUsers: [alice]",
    "      spawnOnUnmatched: labeled",
    "      runner: process",
    "      harnessEnv: { pass: [FAKE_HARNESS_LOG, FAKE_HARNESS_SLEEP_MS] }",
    "      workspace: { enabled: false }",
    "polling:",
    "  sources: [{ provider: github, repos: [octo/repo] }]",
    hooks,
    "",
  ].join("\n");
}

const BROKEN_HOOKS = `hooks:
  - name: house-rules
    path: hooks/house_rules.ts
`;

Deno.test("a hooks declaration that does not load stops both daemons, naming the hook", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  const dir = tree({
    ".the-loop/cli-config.yaml": config(gh.url, BROKEN_HOOKS),
    ".the-loop/hooks/house_rules.ts": "export default class { session_spawn( {\n",
  });
  const env = { START_TOKEN: TOKEN, THE_LOOP_GH_WEBHOOK_SECRET: "s" };
  for (const args of [["poll", "start", "--once"], ["gh-webhook", "start", "--port", "0"]]) {
    const r = await cli(args, { cwd: dir, env });
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /hook "house-rules"/, args.join(" "));
    assert.match(r.stderr, /house_rules\.ts:\d+:\d+/, args.join(" "));
    assert.doesNotMatch(r.stdout, /started|listening/, "it never said it was ready");
  }
});

Deno.test("poll start --dry-run shows the spawn prompt after the hooks, and spawns nothing", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  const issue = gh.world.addIssue("octo/repo", { labels: [LABEL], user: "alice" });
  gh.world.addComment("octo/repo", issue.number, "the-loop:start-execution", "alice");
  const hooks = `hooks:
  - name: marker
    path: hooks/marker.ts
    on: [session_spawn]
`;
  const marker = `import { LifecycleHooks, type SessionSpawn } from "@the-loop/hooks";
export default class Marker extends LifecycleHooks {
  override session_spawn(ctx: SessionSpawn) {
    return { prompt: "HOUSE RULES APPLY\\n" + ctx.prompt };
  }
}
`;
  const dir = tree({
    ".the-loop/cli-config.yaml": config(gh.url, hooks),
    ".the-loop/hooks/marker.ts": marker,
  });
  const log = join(dir, "harness.jsonl");
  const env = { START_TOKEN: TOKEN, PATH: pathWithFakes(), FAKE_HARNESS_LOG: log };
  const r = await cli(["poll", "start", "--dry-run", "--format", "json"], { cwd: dir, env });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  const spawn = doc.actions.find((a: { action: string }) => a.action === "spawn");
  assert.ok(spawn, JSON.stringify(doc.actions));
  assert.equal(spawn.workItem, `github:octo/repo#${issue.number}`);
  assert.match(spawn.prompt, /^HOUSE RULES APPLY\n/);
  assert.match(spawn.prompt, new RegExp(`/the-loop:work-on github:octo/repo#${issue.number}`));
  const text = await cli(["poll", "start", "--dry-run"], { cwd: dir, env });
  assert.match(text.stdout, /would spawn: github:octo\/repo#1\n {2}\| HOUSE RULES APPLY/);
  assert.deepEqual(await readHarnessLog(log), [], "nothing was spawned");
  const sessions = join(dir, ".the-loop", "sessions");
  const files = await Array.fromAsync(Deno.readDir(sessions)).catch(() => []);
  assert.deepEqual(files.filter((f) => f.name.endsWith(".json")), [], "nothing was registered");
  assert.equal(gh.requests.filter((q) => q.method === "POST" && q.path !== "/graphql").length, 0);
});
