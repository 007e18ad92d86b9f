/**
 * What the demo agent does with each prompt it gets: a pure core, state in, state and actions
 * out (`agent.ts` is its shell: the terminal, git, `the-loop`).
 *
 * | the prompt                                    | the agent                                         |
 * | --------------------------------------------- | ------------------------------------------------- |
 * | any                                           | acknowledges it (one line)                        |
 * | spells `` `the-loop advance --outcome O` ``   | remembers that command (the node's claim)          |
 * | the first one                                 | asks a person once (`the-loop ask`)               |
 * | the answer (`Answer from @… to your question`)| notes it                                          |
 * | once answered, with a claim remembered        | commits its work, then runs the claim             |
 * | says the loop is done                         | says so (closing the issue ends its session)      |
 * | anything else                                 | waits                                             |
 *
 * So the demo walks: session start → a question → its answer (a comment or `the-loop reply`) →
 * a commit and `advance` → the gate → a person's `the-loop:approve` → done. A request for changes
 * sends the item back to its work node, whose prompt spells the claim again: another commit and
 * claim, no second question.
 *
 * @module
 */

/** The question the demo agent asks, once. */
export const DEMO_QUESTION = "Should I retry the flaky step, or fix its timing?";

/** What the agent remembers between prompts (kept in a file: a headless run is one prompt). */
export interface AgentState {
  /** Prompts seen. */
  prompts: number;
  /** Whether it asked its question. */
  asked: boolean;
  /** The answer's text, once it came (`null` before). */
  answer: string | null;
  /** The claim its node's prompt spelled, not yet run (`the-loop advance --outcome O`, argv). */
  claim: string[] | null;
  /** Commits it made. */
  commits: number;
}

/** The state of an agent that has seen nothing. */
export function freshState(): AgentState {
  return { prompts: 0, asked: false, answer: null, claim: null, commits: 0 };
}

/** What the shell is told to do, in order. */
export type AgentAction =
  | { kind: "say"; text: string }
  | { kind: "ask"; question: string }
  | { kind: "commit"; message: string; note: string }
  | { kind: "claim"; argv: string[] };

/** The command a loop's agent node spells out to finish it, in backticks. */
const CLAIM = /`(the-loop advance --outcome [a-z][a-z0-9-]*(?: --node [a-z][a-z0-9-]*)?)`/;
/** The head of an answer's prompt (`dispatch/turn/_ask.ts`'s `answerPrompt`). */
const ANSWER = /^(?:Answer|Reply) from (\S+)/m;
/** What the prompt of a finished loop says (`dispatch/turn/_loop_text.ts`). */
const DONE = /The loop is done/;
/** The fenced text of an answer (`~~~text` … `~~~`). */
const FENCED = /^(~{3,})text\n([\s\S]*?)\n\1$/m;

/** A prompt's first non-empty line, cut for a one-line acknowledgement. */
function headline(prompt: string): string {
  const first = prompt.split("\n").map((l) => l.trim()).find((l) => l) ?? "";
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}

/** The answer's own words (its fenced block), else the prompt itself; one line, cut. */
export function answerText(prompt: string): string {
  const text = FENCED.exec(prompt)?.[2] ?? prompt;
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** What the agent does with `prompt` (see the module doc); the state is not changed in place. */
export function react(
  before: AgentState,
  prompt: string,
): { state: AgentState; actions: AgentAction[] } {
  const state: AgentState = { ...before, prompts: before.prompts + 1 };
  const lines = prompt.split("\n").length;
  const actions: AgentAction[] = [{
    kind: "say",
    text: `demo agent: got prompt #${state.prompts} (${lines} line${lines === 1 ? "" : "s"}): ${
      headline(prompt)
    }`,
  }];
  const claim = CLAIM.exec(prompt);
  if (claim) state.claim = claim[1].split(" ");
  const answered = ANSWER.exec(prompt);
  if (answered && state.asked) {
    state.answer = answerText(prompt);
    actions.push({ kind: "say", text: `demo agent: ${answered[1]} answered: ${state.answer}` });
  }
  if (!state.asked) {
    state.asked = true;
    actions.push({ kind: "say", text: "demo agent: asking a person before I start" });
    actions.push({ kind: "ask", question: DEMO_QUESTION });
  } else if (state.answer !== null && state.claim) {
    state.commits++;
    actions.push({
      kind: "commit",
      message: `Fix the flaky login test (round ${state.commits})`,
      note: `Round ${state.commits}: as decided by a person: ${state.answer}\n`,
    });
    actions.push({ kind: "claim", argv: state.claim });
    state.claim = null;
  } else if (DONE.test(prompt)) {
    actions.push({
      kind: "say",
      text: "demo agent: the loop is done; closing the issue ends this session",
    });
  } else {
    actions.push({ kind: "say", text: "demo agent: waiting" });
  }
  return { state, actions };
}
