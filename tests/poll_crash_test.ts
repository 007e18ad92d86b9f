/**
 * Crash safety, tested rather than asserted: the real poller is killed with SIGKILL at random
 * moments (at least 30 times) while new comments keep arriving, and restarted each time. In the
 * end every comment has been handed to the dispatcher, and none twice — except the one delivery
 * that was in flight at a kill, which the restarted poller hands over again and says so
 * (`poll.redelivering`). The test prints how many of those there were.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readJournal } from "../dispatch/mod.ts";
import { FakeGitHub } from "./fake_github/mod.ts";
import { cli, pollKillTrials, tree } from "./_test_utils.ts";

const TOKEN = "t0k-crash";
const LABEL = "the-loop: auto-execute";
const REPO = "octo/repo";
const TRIALS = 32;
const ENV = { POLL_TOKEN: TOKEN };

Deno.test("SIGKILL at random moments loses no comment and repeats only the delivery in flight", async () => {
  const gh = await FakeGitHub.start({ token: TOKEN });
  const dir = tree({
    ".the-loop/cli-config.yaml": [
      `github: { apiUrl: "${gh.url}", tokenEnv: POLL_TOKEN }`,
      "webhooks:",
      "  ghWebhook:",
      "    routing:",
      "      dispatcher: journal # the journal shows every hand-over, duplicates included",
      "      authorizedUsers: [alice]",
      "polling:",
      "  sources:",
      "    - provider: github",
      `      repos: [${REPO}]`,
      "",
    ].join("\n"),
  });
  const root = join(dir, ".the-loop");
  const posted: string[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    const issues = [1, 2, 3].map(() =>
      gh.world.addIssue(REPO, { labels: [LABEL], user: "alice" }).number
    );
    const first = await cli(["poll", "start", "--once"], { cwd: dir, env: ENV });
    assert.equal(first.code, 0, first.stderr); // first sight: baselined, nothing to hand over
    let n = 0;
    timer = setInterval(() => {
      const number = issues[n % issues.length];
      posted.push(gh.world.addComment(REPO, number, `comment ${n++}`, "alice").node_id);
    }, 15);
    const kills = await pollKillTrials({ cwd: dir, env: ENV, trials: TRIALS, maxDelayMs: 200 });
    clearInterval(timer);
    timer = undefined;
    for (let i = 0; i < 2; i++) {
      const drain = await cli(["poll", "start", "--once"], { cwd: dir, env: ENV });
      assert.equal(drain.code, 0, drain.stderr);
    }
    const journal = await readJournal(join(root, "dispatch-journal.jsonl"));
    const handed = new Map<string, number>();
    for (const j of journal) {
      assert.equal(j.kind, "comment");
      const id = j.delivery_id.replace(/^poll-comment-/, "");
      handed.set(id, (handed.get(id) ?? 0) + 1);
    }
    const lost = posted.filter((id) => !handed.has(id));
    assert.deepEqual(lost, [], "every comment reached the dispatcher");
    const redelivered = new Set(
      (await Deno.readTextFile(join(root, "logs", "events.jsonl"))).split("\n")
        .filter((l) => l.includes('"poll.redelivering"'))
        .map((l) => JSON.parse(l).comment as string),
    );
    const twice = [...handed].filter(([, count]) => count > 1);
    const extra = twice.reduce((sum, [, count]) => sum + count - 1, 0);
    for (const [id] of twice) {
      assert.ok(redelivered.has(id), `${id} was handed over twice without being in flight`);
    }
    assert.ok(extra <= kills, `${extra} repeats for ${kills} kills`);
    console.log(
      `crash trials: ${kills} kills, ${posted.length} comments, ${journal.length} deliveries, ` +
        `${extra} repeated (in flight at a kill), 0 lost`,
    );
    assert.ok(kills >= 30, `only ${kills} kills landed`);
  } finally {
    if (timer !== undefined) clearInterval(timer);
    await gh.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
