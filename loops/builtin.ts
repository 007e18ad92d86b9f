/**
 * The two loops built into the-loop, always present beside the config's `loops:` (a config loop
 * may not take their names):
 *
 * - `adhoc` (the default of `routing.loop`): `work` (the agent does the work) → `review` (a
 *   person approves, or requests changes: back to `work`) → `done`.
 * - `pdlc`: `requirements` → `requirements-review` → `design` → `design-review` →
 *   `implementation` → `implementation-review` → `done`; each agent node's outcome is `done`,
 *   each review is a person's, `approve` on to the next stage, `request-changes` back to the
 *   node that wrote what is reviewed.
 *
 * Every node's phase is its own id, so every move in a built-in is a phase change.
 *
 * @module
 */
import type { LoopDef, LoopNode, LoopSet } from "./types.ts";

/** The names the built-ins take; a config loop named so is refused. */
export const BUILTIN_NAMES: readonly string[] = ["adhoc", "pdlc"];

const MAX_ATTEMPTS = 3;

function agent(id: string, done: string, prompt: string): LoopNode {
  return {
    id,
    phase: id,
    actor: "agent",
    next: { done },
    prompt,
    terminal: false,
    maxAttempts: MAX_ATTEMPTS,
  };
}

function review(id: string, approve: string, back: string): LoopNode {
  return {
    id,
    phase: id,
    actor: "human",
    next: { approve, "request-changes": back },
    prompt: "",
    terminal: false,
    maxAttempts: MAX_ATTEMPTS,
  };
}

function done(): LoopNode {
  return {
    id: "done",
    phase: "done",
    next: {},
    prompt: "",
    terminal: true,
    maxAttempts: MAX_ATTEMPTS,
  };
}

function loop(name: string, nodes: LoopNode[]): LoopDef {
  return {
    name,
    start: nodes[0].id,
    nodes: Object.fromEntries(nodes.map((n) => [n.id, n])),
    builtin: true,
  };
}

const ADHOC = loop("adhoc", [
  agent(
    "work",
    "review",
    "Do what the work item asks. When the work is ready for a person's review, finish this step.",
  ),
  review("review", "done", "work"),
  done(),
]);

const PDLC = loop("pdlc", [
  agent(
    "requirements",
    "requirements-review",
    "Write down the requirements: what the work item asks for, who it is for, what is out of " +
      "scope and how we will know it is done. Post them on the work item, then finish this step " +
      "for a person's review.",
  ),
  review("requirements-review", "design", "requirements"),
  agent(
    "design",
    "design-review",
    "Design the change the approved requirements call for: the parts it touches, the " +
      "interfaces, the risks and how it will be tested. Post the design on the work item, then " +
      "finish this step for a person's review.",
  ),
  review("design-review", "implementation", "design"),
  agent(
    "implementation",
    "implementation-review",
    "Implement the approved design, with its tests. When the change is ready for a person's " +
      "review, finish this step.",
  ),
  review("implementation-review", "done", "implementation"),
  done(),
]);

/** The built-in loops, by name: `adhoc` and `pdlc`. */
export const BUILTIN_LOOPS: LoopSet = new Map([[ADHOC.name, ADHOC], [PDLC.name, PDLC]]);
