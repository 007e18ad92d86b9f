/**
 * Loops end to end through `gh-webhook start` (each change of the fake GitHub a signed
 * delivery): the real CLI against the fake GitHub, fake `claude`s that act from inside their
 * sessions in real tmux, a real command hook.
 * An item walks `pdlc` to `done` (the agent's `advance` at each agent node, alice's approval at
 * each gate, a stranger's ignored), the hook sees the seed's facts in order and silences one
 * label; the agent asks and alice's answer reaches its session; a SIGKILL at a gate keeps the
 * position and the approval still advances it after a restart. The same scenarios as
 * `loops_poll_e2e_test.ts` (see `_loops_e2e_utils.ts`).
 */
import {
  askAndAnswer,
  hooksSawTheWalk,
  killedAtGate,
  LoopsE2E,
  QUESTION,
  walkPdlc,
} from "./_loops_e2e_utils.ts";

Deno.test("gh-webhook: an item walks pdlc to done; the hooks see each move and one label is silenced", async () => {
  const fx = await LoopsE2E.open({ harness: { FAKE_HARNESS_ACT: "1" } });
  try {
    const d = await fx.webhook();
    const s = await walkPdlc(fx, d);
    await hooksSawTheWalk(fx, s.n);
  } finally {
    await fx.close();
  }
});

Deno.test("gh-webhook: the agent asks, the hook rewrites the question, alice's answer reaches the session", async () => {
  const fx = await LoopsE2E.open({ harness: { FAKE_HARNESS_ASK: QUESTION } });
  try {
    await askAndAnswer(fx, await fx.webhook());
  } finally {
    await fx.close();
  }
});

Deno.test("gh-webhook: a SIGKILL at a gate keeps the position; after a restart the approval advances it", async () => {
  const fx = await LoopsE2E.open({ harness: { FAKE_HARNESS_ACT: "1" } });
  try {
    await killedAtGate(fx, await fx.webhook(), () => fx.webhook());
  } finally {
    await fx.close();
  }
});
