/**
 * The SIGKILL trial again, with real sessions behind the router: the poller drives the sessions
 * dispatcher, which runs the (fake) `claude` headless for the spawn and for every delivery. It is
 * killed at random moments (at least 30 times) while comments keep arriving, and restarted. In
 * the end every comment has reached the agent, and none twice except a delivery in flight at a
 * kill (the session's `recentDeliveries` and the ledger keep the rest at most once).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathWithFakes, readHarnessLog } from "./fake_harness/mod.ts";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, pollKillTrials, tree } from "./_test_utils.ts";

const TOKEN = "t0k-crash-sessions";
const LABEL = "the-loop: auto-execute";
const REPO = "octo/repo";
const TRIALS = 30;

Deno.test("SIGKILL at random moments, real sessions: every comment reaches the agent", async () => {
  const gh = await FakeGitHub.start({ token: TOKEN });
  const dir = tree({
    ".the-loop/cli-config.yaml": [
      `github: { apiUrl: "${gh.url}", tokenEnv: POLL_TOKEN }`,
      "webhooks:",
      "  ghWebhook:",
      "    routing:",
      "      authorizedUsers: [alice]",
      // a crash rig: one author's burst, past the budgets that would pause it
      "      loopGuard: { maxPerWindow: 0 }",
      "      budgets: { deliveriesPerHour: 0, spawnsPerDay: 0 }",
      "      spawnOnUnmatched: labeled",
      "      runner: process",
      "      harnessEnv: { pass: [FAKE_HARNESS_LOG, FAKE_HARNESS_SLEEP_MS] }",
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
  const env = { POLL_TOKEN: TOKEN, PATH: pathWithFakes(), FAKE_HARNESS_LOG: log };
  const posted: string[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    const issue = gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" }).number;
    gh.world.addComment(REPO, issue, "the-loop:start-execution", "alice");
    const first = await cli(["poll", "start", "--once"], { cwd: dir, env });
    assert.equal(first.code, 0, first.stderr); // first sight applies the start: one spawn
    assert.equal((await readHarnessLog(log)).filter((e) => e.event === "boot").length, 1);
    let n = 0;
    timer = setInterval(() => {
      const word = `w${String(n++).padStart(4, "0")}x`;
      posted.push(word);
      gh.world.addComment(REPO, issue, `please look at ${word}`, "alice");
    }, 100);
    const kills = await pollKillTrials({ cwd: dir, env, trials: TRIALS, maxDelayMs: 400 });
    clearInterval(timer);
    timer = undefined;
    for (let i = 0; i < 3; i++) {
      const drain = await cli(["poll", "start", "--once"], { cwd: dir, env });
      assert.equal(drain.code, 0, drain.stderr);
    }
    const boots = (await readHarnessLog(log)).filter((e) => e.event === "boot");
    const seen = new Map<string, number>();
    for (const b of boots) {
      for (const word of new Set((b.argv ?? []).join(" ").match(/w\d{4}x/g) ?? [])) {
        seen.set(word, (seen.get(word) ?? 0) + 1);
      }
    }
    const lost = posted.filter((w) => !seen.has(w));
    assert.deepEqual(lost, [], "every comment reached the agent");
    const extra = [...seen.values()].reduce((sum, count) => sum + count - 1, 0);
    assert.ok(extra <= kills, `${extra} repeats for ${kills} kills`);
    assert.equal(new Set(boots.slice(1).map((b) => b.session)).size, 1, "one conversation");
    console.log(
      `crash trials with sessions: ${kills} kills, ${posted.length} comments, ` +
        `${boots.length - 1} harness runs, ${extra} repeated (in flight at a kill), 0 lost`,
    );
    assert.ok(kills >= TRIALS, `only ${kills} kills landed`);
  } finally {
    if (timer !== undefined) clearInterval(timer);
    await gh.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
