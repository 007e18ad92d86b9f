/**
 * Budgets end to end, through the real `poll start` against the fake GitHub and fake `claude`s:
 * a headless run whose reported cost reaches `costUsd` pauses the item, `sessions list` shows the
 * figures against the budget, and `sessions resume` grants one more window.
 */
import assert from "node:assert/strict";
import { LoopsE2E, ok, START, waitFor } from "./_loops_e2e_utils.ts";

Deno.test("poll: a headless run whose reported cost reaches costUsd pauses the item; sessions resume grants a window", async () => {
  const fx = await LoopsE2E.open({
    runner: "process",
    routing: "      budgets: { costUsd: 1 }\n",
    harness: { FAKE_HARNESS_COST: "0.4" },
  });
  try {
    const d = await fx.poll();
    const n = fx.openIssue();
    await d.step();
    const boots = async () => (await fx.harness()).filter((e) => e.event === "boot");
    const say = async (body: string, runs: number) => {
      fx.gh.world.addComment("octo/repo", n, body, "alice");
      await d.step();
      await waitFor(`${runs} runs`, async () => (await boots()).length >= runs, boots);
    };
    await say(START, 1);
    await say("first FIX-1", 2);
    await say("second FIX-2", 3); // $1.20: the last run before a resume
    await waitFor("the pause", () => fx.own(n).some((c) => c.body.startsWith("⏸️")));
    const pause = fx.own(n).find((c) => c.body.startsWith("⏸️"))!;
    assert.match(pause.body, /`routing\.budgets\.costUsd`: \$1\.20 of \$1\.00/);
    assert.ok(pause.body.includes(`the-loop sessions resume ${fx.ref(n)}`));
    // each run was capped by what was left
    const caps = (await boots()).map((b) => b.argv![b.argv!.indexOf("--max-budget-usd") + 1]);
    assert.deepEqual(caps.map(Number), [1, 0.6, 0.2]);
    fx.gh.world.addComment("octo/repo", n, "third FIX-3", "alice");
    await d.step();
    await d.step();
    assert.equal((await boots()).length, 3, "nothing delivered while paused");
    const listed = await fx.listed(n);
    assert.equal(listed.status, "paused");
    const usage = listed.usage as {
      budgets: Record<string, { used: number | null; limit: number | null }>;
    };
    assert.deepEqual(usage.budgets.costUsd, { used: 1.2, limit: 1 });
    assert.deepEqual(usage.budgets.tokens, { used: null, limit: null });
    const table = ok(await fx.cli(["sessions", "list"])).stdout;
    assert.match(table, /cost \$1\.20\/\$1\.00/);

    const r = ok(
      await fx.cli(["sessions", "resume", fx.ref(n), "--as", "operator", "--no-comment"]),
    );
    assert.match(r.stdout, /the daemon delivers the 1 held delivery/);
    await waitFor("the held comment", async () => (await boots()).length === 4, boots);
    const last = (await boots()).at(-1)!;
    assert.ok(JSON.stringify(last).includes("FIX-3"));
    assert.equal(Number(last.argv![last.argv!.indexOf("--max-budget-usd") + 1]), 1, "a new window");
    assert.equal((await fx.listed(n)).status, "active");
  } finally {
    await fx.close();
  }
});
