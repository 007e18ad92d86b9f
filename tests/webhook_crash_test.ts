/**
 * The durable inbox, end to end: the real `gh-webhook start` (tmux runner, fake `claude` in
 * each pane) is SIGKILLed at random moments of a burst, restarted, and every delivery id is then
 * redelivered. Every delivery answered 202 before a kill arrives by the inbox's replay alone; no
 * comment is lost; a session gets at most one repeated delivery (one batch) per kill, and every
 * repeat's prompt says it may repeat. Like the bench (`bench/webhook_crash.ts`), 30 kills, each at
 * a random moment of a 200-comment burst over 20 items (about 20 s on two cores).
 */
import assert from "node:assert/strict";
import { crashTrials } from "../bench/webhook_crash.ts";

Deno.test({
  name:
    "gh-webhook start, SIGKILLed mid-burst and redelivered: 0 lost, repeats flagged, one per session per kill",
  fn: async () => {
    const f = await crashTrials({ sessions: 20, perItem: 10, kills: 30, maxDelayMs: 300 });
    console.log(`webhook crash trials: ${JSON.stringify(f)}`);
    assert.equal(f.lost, 0, "every comment reached its session");
    assert.equal(f.unflagged, 0, "every repeat's prompt said it may repeat");
    assert.ok(
      f.max_repeated_batches_per_session <= 1,
      "at most one repeated batch per session per kill",
    );
    assert.ok(f.accepted_before_kill > 0, "some deliveries were answered 202 before a kill");
  },
});
