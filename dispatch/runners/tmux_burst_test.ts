/**
 * The original's bug: every delivery went through one shared tmux buffer, so under a burst a
 * prompt could be pasted into another session. Here 20 sessions take 10 deliveries each, all
 * sessions at once (each session's own deliveries in order, as the dispatcher serializes them):
 * every line must land in its own session, in order, and nowhere else.
 */
import assert from "node:assert/strict";
import { tmuxSetup } from "./_test_utils.ts";
import { waitForHarnessLog } from "../../tests/fake_harness/mod.ts";

const SESSIONS = 20;
const DELIVERIES = 10;

Deno.test("tmux runner (control mode, as the daemons run it): 20 sessions × 10 concurrent deliveries each land in their own session, in order", async () => {
  const t = await tmuxSetup({ control: true });
  try {
    const sessions = Array.from({ length: SESSIONS }, (_, i) => t.session(i + 1));
    await Promise.all(sessions.map((s) => t.runner.spawn(s, `boot ${s.slug}`, { resume: false })));
    const took = await Promise.all(sessions.map(async (s) => {
      const each: boolean[] = [];
      for (let i = 0; i < DELIVERIES; i++) {
        each.push(await t.runner.deliver(s, `prompt for ${s.slug} number ${i}`, {}));
      }
      return each;
    }));
    assert.ok(took.flat().every((x) => x), "no pane died under the burst");
    const entries = await waitForHarnessLog(
      t.harnessLog,
      (e) => e.filter((x) => x.event === "input").length >= SESSIONS * DELIVERIES,
      { timeoutMs: 60_000, what: `${SESSIONS * DELIVERIES} pasted lines` },
    );
    for (const s of sessions) {
      const got = entries.filter((e) => e.event === "input" && e.session === s.harnessSessionId)
        .map((e) => e.line);
      const want = Array.from({ length: DELIVERIES }, (_, i) => `prompt for ${s.slug} number ${i}`);
      assert.deepEqual(got, want, `session ${s.slug}`);
    }
    assert.equal(entries.filter((e) => e.event === "input").length, SESSIONS * DELIVERIES);
  } finally {
    await t.cleanup();
  }
});
