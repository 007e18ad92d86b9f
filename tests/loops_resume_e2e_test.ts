/**
 * `sessions resume` of an item its loop parked, end to end through `poll start`: the agent's
 * node is entered more often than its `maxAttempts` after a person's `request-changes`, the
 * item is parked and its session paused; the operator's `sessions resume` (the CLI, no
 * comment) resumes the position in the files and tells the running daemon, which gives the
 * agent, in the same session, the verdict that sent it back and its node's assignment.
 */
import assert from "node:assert/strict";
import { LoopsE2E, startItem, waitFor, waitGate, waitNode } from "./_loops_e2e_utils.ts";

const TIGHT = `
loops:
  tight:
    start: work
    nodes:
      work: { actor: agent, maxAttempts: 1, next: { done: review } }
      review: { actor: human, next: { approve: fin, request-changes: work } }
      fin: { terminal: true }
`;

Deno.test("poll: sessions resume of a parked item tells the daemon; the agent hears the held verdict and its assignment", async () => {
  const fx = await LoopsE2E.open({ harness: { FAKE_HARNESS_ACT: "1" }, extraConfig: TIGHT });
  try {
    const d = await fx.poll();
    const n = fx.openIssue();
    await d.step();
    const s = await startItem(fx, d, n, "tight");
    await waitGate(fx, n, "review"); // the agent advanced from work
    fx.gh.world.addComment(
      "octo/repo",
      n,
      "the-loop:request-changes — rename FIX-7777 first",
      "alice",
    );
    await d.step();
    let pos: Record<string, unknown> | undefined;
    await waitFor(
      "the park",
      async () => (pos = await fx.position(n))?.status === "escalated",
      () => pos,
    );
    assert.match(String(pos!.held), /FIX-7777/);
    assert.equal((await fx.listed(n)).status, "paused");
    const lines = async () =>
      (await fx.harness()).filter((e) => e.event === "input" && e.pid === s.boot.pid)
        .map((e) => e.line ?? "");
    assert.ok(!(await lines()).some((l) => l.includes("FIX-7777")), "not told while parked");
    const r = await fx.cli(["sessions", "resume", fx.ref(n), "--no-comment", "--as", "operator"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /the agent of github:octo\/repo#\d+ was given its assignment again/);
    await waitFor(
      "the held verdict in the same session",
      async () => (await lines()).some((l) => l.includes("FIX-7777")),
      lines,
    );
    // the agent acts on its assignment again: back at the gate, in the one session
    await waitNode(fx, n, "review");
    const after = await fx.position(n);
    assert.equal(after?.held, undefined, "told once, then cleared");
    assert.equal(
      (await fx.harness()).filter((e) => e.event === "boot").length,
      1,
      "the resume reached the one session; nothing booted another",
    );
  } finally {
    await fx.close();
  }
});
