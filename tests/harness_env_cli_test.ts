/**
 * End to end: `poll start --once` (the real CLI, a process of its own) runs with the webhook
 * secret, `GH_TOKEN`, `GITHUB_TOKEN`, its own token and another variable in its environment, and
 * spawns the (fake) `claude` for a labelled, started issue. The harness's `/proc/self/environ`
 * holds none of them: only the allowlist, what `routing.harnessEnv` names, and the agent's token
 * (`routing.agentToken`) as `GH_TOKEN`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathWithFakes, readHarnessLog } from "./fake_harness/mod.ts";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, tree } from "./_test_utils.ts";

const TOKEN = "t0k-daemon-env-e2e";
const REPO = "octo/repo";
const SECRETS: Record<string, string> = {
  POLL_TOKEN: TOKEN,
  THE_LOOP_GH_WEBHOOK_SECRET: "webhook-secret-e2e-4411",
  GH_TOKEN: "gh-token-e2e-8822",
  GITHUB_TOKEN: "github-token-e2e-9933",
  UNRELATED_VAR: "unrelated-e2e-7744",
};
const AGENT_TOKEN = "agent-token-e2e-5566";

Deno.test("poll start: the harness a real daemon spawns sees none of the daemon's secrets", async () => {
  const gh = await FakeGitHub.start({ token: TOKEN });
  const dir = tree({
    ".the-loop/cli-config.yaml": [
      `github: { apiUrl: "${gh.url}", tokenEnv: POLL_TOKEN }`,
      "webhooks:",
      "  ghWebhook:",
      "    routing:",
      "      authorizedUsers: [alice]",
      "      spawnOnUnmatched: labeled",
      "      runner: process",
      "      harnessEnv: { pass: [FAKE_HARNESS_LOG], set: { AGENT_NOTE: hello } }",
      "      agentToken: { env: AGENT_TOKEN }",
      "      workspace: { enabled: false }",
      "      harnessTrust: { enabled: false }",
      "      reactions: { enabled: false }",
      "polling:",
      "  sources:",
      "    - provider: github",
      `      repos: [${REPO}]`,
      "",
    ].join("\n"),
  });
  const log = join(dir, "harness.jsonl");
  const env = {
    ...SECRETS,
    AGENT_TOKEN,
    PATH: pathWithFakes(),
    FAKE_HARNESS_LOG: log,
    LC_MESSAGES: "C",
  };
  try {
    const issue = gh.world.addIssue(REPO, { labels: ["the-loop: auto-execute"], user: "alice" });
    gh.world.addComment(REPO, issue.number, "the-loop:start-execution", "alice");
    const run = await cli(["poll", "start", "--once"], { cwd: dir, env });
    assert.equal(run.code, 0, run.stderr);
    const boots = (await readHarnessLog(log)).filter((e) => e.event === "boot");
    assert.equal(boots.length, 1, "one spawn");
    const seen = boots[0].environ ?? {};
    for (const [name, value] of Object.entries(SECRETS)) {
      if (name !== "GH_TOKEN") assert.equal(seen[name], undefined, `the harness got ${name}`);
      assert.ok(!Object.values(seen).includes(value), `the harness got the value of ${name}`);
    }
    assert.equal(seen.GH_TOKEN, AGENT_TOKEN, "the agent's token, as GH_TOKEN");
    assert.equal(seen.AGENT_TOKEN, undefined);
    assert.equal(seen.AGENT_NOTE, "hello");
    assert.equal(seen.FAKE_HARNESS_LOG, log);
    assert.equal(seen.LC_MESSAGES, "C");
    // (a python launcher may put its own folders first)
    assert.ok(seen.PATH?.includes(env.PATH), seen.PATH);
  } finally {
    await gh.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
