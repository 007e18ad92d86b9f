/**
 * Budgets end to end, through the real `poll start` against the fake GitHub and fake `claude`s:
 * a bot and a person ping-ponging 40 comments pause the item past the loop guard (one comment,
 * nothing delivered past it) until an authorized resume, then the held comments go in, in order;
 * a headless run whose reported cost reaches `costUsd` pauses the item, `sessions list` shows the
 * figures against the budget, and `sessions resume` grants one more window.
 */
import assert from "node:assert/strict";
import { LoopsE2E, ok, START, waitFor } from "./_loops_e2e_utils.ts";

const RESUME = "the-loop:resume-execution";
const BOT = "pingpong[bot]";

Deno.test("poll: a bot and a person ping-pong 40 comments: paused past the loop guard with one comment, held until alice resumes, then in order", async () => {
  const fx = await LoopsE2E.open({ routing: `      authorizedBots: ["${BOT}"]\n` });
  try {
    const d = await fx.poll();
    const n = fx.openIssue();
    await d.step();
    fx.gh.world.addComment("octo/repo", n, START, "alice");
    await d.step();
    await waitFor("the session", async () => (await fx.harness()).some((e) => e.event === "boot"));
    for (let i = 0; i < 40; i++) {
      fx.gh.world.addComment("octo/repo", n, `ping-${i}-end`, i % 2 === 0 ? BOT : "alice");
    }
    await d.step();
    const paused = () => fx.own(n).filter((c) => c.body.startsWith("⏸️"));
    await waitFor("the pause comment", () => paused().length === 1, () => fx.own(n));
    const text = async () =>
      (await fx.harness()).filter((e) => e.event === "input").map((e) => e.line ?? "").join("\n");
    const seen = async () =>
      [...(await text()).matchAll(/ping-(\d+)-end/g)].map((m) => Number(m[1]));
    await waitFor("29 comments in", async () => (await seen()).includes(28), text);
    await d.step();
    // alice's start was her first word: her 15th reply (ping-29) is her 16th in the window
    assert.deepEqual([...new Set(await seen())], Array.from({ length: 29 }, (_, i) => i));
    assert.match(paused()[0].body, /loop guard: alice wrote 15 comments or reviews/);
    assert.ok(paused()[0].body.includes(RESUME));
    const events = await fx.events();
    const exceeded = events.filter((e) => e.event === "budget.exceeded");
    assert.equal(exceeded.length, 1);
    assert.equal(exceeded[0].budget, "loop-guard");
    assert.equal((await fx.listed(n)).status, "paused");

    // a stranger's resume does nothing; alice's grants one more window and the 11 go in, in order
    fx.gh.world.addComment("octo/repo", n, RESUME, "mallory");
    await d.step();
    assert.equal((await fx.listed(n)).status, "paused");
    fx.gh.world.addComment("octo/repo", n, RESUME, "alice");
    await d.step();
    await waitFor("the held comments", async () => (await seen()).includes(39), text);
    assert.deepEqual([...new Set(await seen())], Array.from({ length: 40 }, (_, i) => i));
    const listed = await fx.listed(n);
    assert.equal(listed.status, "active");
    assert.equal((listed.usage as { grants: number }).grants, 1);
    assert.equal(
      (await fx.harness()).filter((e) => e.event === "boot").length,
      1,
      "paused, never killed: one harness throughout",
    );
  } finally {
    await fx.close();
  }
});

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
