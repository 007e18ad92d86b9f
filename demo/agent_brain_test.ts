/** The demo agent's core: what it does with each prompt. */
import assert from "node:assert/strict";
import { answerText, DEMO_QUESTION, freshState, react } from "./agent_brain.ts";

const BOOT = "You have been started…\n\nFinish it with:\n- `the-loop advance --outcome done`\n";
const ANSWER = [
  'Answer from @you to your question "Should I…":',
  "",
  "UNTRUSTED CONTENT from GitHub (@you's words: …):",
  "~~~text",
  "fix its timing",
  "~~~",
  "END OF UNTRUSTED CONTENT",
].join("\n");
const kinds = (r: ReturnType<typeof react>) => r.actions.map((a) => a.kind);

Deno.test("the first prompt: acknowledged, the question asked once, the claim remembered", () => {
  const r = react(freshState(), BOOT);
  assert.deepEqual(kinds(r), ["say", "say", "ask"]);
  assert.deepEqual(r.actions[2], { kind: "ask", question: DEMO_QUESTION });
  assert.match((r.actions[0] as { text: string }).text, /^demo agent: got prompt #1 \(5 lines\)/);
  assert.deepEqual(r.state.claim, ["the-loop", "advance", "--outcome", "done"]);
  assert.equal(r.state.asked, true);
  // another prompt before the answer: no second question, no claim
  const again = react(r.state, "a comment");
  assert.deepEqual(kinds(again), ["say", "say"]);
  assert.deepEqual(again.state.claim, r.state.claim);
});

Deno.test("the answer: a commit naming it, then the remembered claim, once", () => {
  const asked = react(freshState(), BOOT).state;
  const r = react(asked, ANSWER);
  assert.deepEqual(kinds(r), ["say", "say", "commit", "claim"]);
  assert.equal(r.state.answer, "fix its timing");
  const commit = r.actions[2] as { message: string; note: string };
  assert.equal(commit.message, "Fix the flaky login test (round 1)");
  assert.match(commit.note, /fix its timing/);
  assert.deepEqual(r.actions[3], {
    kind: "claim",
    argv: ["the-loop", "advance", "--outcome", "done"],
  });
  assert.equal(r.state.claim, null);
  // the gate's prompt (no claim in it): it waits
  assert.deepEqual(kinds(react(r.state, "a person reviews")), ["say", "say"]);
  // the loop's end
  const done = react(r.state, "approved. The loop is done: there is nothing more to finish here.");
  assert.match((done.actions[1] as { text: string }).text, /the loop is done/);
  // changes requested: back at work, whose prompt spells the claim again: round 2
  const back = react(r.state, "changes requested\n- `the-loop advance --outcome done`");
  assert.deepEqual(kinds(back), ["say", "commit", "claim"]);
  assert.equal(
    (back.actions[1] as { message: string }).message,
    "Fix the flaky login test (round 2)",
  );
});

Deno.test("an answer's text is its fenced block, on one line, cut", () => {
  assert.equal(answerText(ANSWER), "fix its timing");
  assert.equal(answerText("no fence\nhere"), "no fence here");
  assert.equal(answerText(`~~~text\n${"x".repeat(500)}\n~~~`).length, 200);
});
