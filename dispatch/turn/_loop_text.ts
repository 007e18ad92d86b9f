/**
 * What the loop runtime says: the assignment of a node (what an agent node wants and the exact
 * `the-loop advance --outcome O` commands that finish it, one line per outcome; a human node:
 * a person will review), a person's verdict as the next node's assignment begins with it (the
 * comment fenced as untrusted), a gate's request comment and the escalation comment.
 *
 * @module
 */
import { gateKeyword, type LoopDef, type LoopNode } from "../../loops/mod.ts";
import type { RoutedEvent } from "../types.ts";
import { payloadExcerpt } from "../_excerpt.ts";

/** A person's verdict at a gate, as the next node's assignment tells it. */
export interface VerdictNote {
  /** The gate's node id. */
  node: string;
  outcome: string;
  by: string;
  /** The keyword comment (its text fenced as untrusted in the prompt). */
  event: RoutedEvent;
}

/**
 * `` - `the-loop advance --outcome O` `` for each outcome of `node`, in declaration order: the
 * exact lines, nothing after them (a harness may look for them).
 */
export function finishLines(node: LoopNode): string[] {
  return Object.keys(node.next).map((outcome) => `- \`the-loop advance --outcome ${outcome}\``);
}

/** `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` ``. */
function orList(items: string[]): string {
  const quoted = items.map((i) => `\`${i}\``);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** The outcomes of a human node a keyword can give (an empty keyword disables its outcome). */
function gateOutcomes(node: LoopNode, keywords: Record<string, string>): string[] {
  return Object.keys(node.next).filter((out) => gateKeyword(out, keywords).trim() !== "");
}

/** The verdict's lines: who decided what at which node, their comment fenced. */
export function verdictText(v: VerdictNote): string {
  return `@${v.by} resolved the review at \`${v.node}\` with the verdict \`${v.outcome}\`. ` +
    `Their comment:\n\n${payloadExcerpt(v.event)}`;
}

/**
 * The assignment of `node` in `loop`: where the item stands, what the node wants, and how to
 * finish it (an agent node), or that a person will review (a human node).
 */
export function assignmentText(
  loop: LoopDef,
  node: LoopNode,
  o: { verdict?: VerdictNote; keywords: Record<string, string> },
): string {
  const parts: string[] = [];
  if (o.verdict) parts.push(verdictText(o.verdict));
  const where = `the-loop: this work item walks the loop \`${loop.name}\` and stands at node ` +
    `\`${node.id}\` (phase \`${node.phase}\`).`;
  if (node.terminal) {
    parts.push(`${where} The loop is done: there is nothing more to finish here.`);
  } else if (node.actor === "human") {
    const keywords = gateOutcomes(node, o.keywords).map((out) => gateKeyword(out, o.keywords));
    parts.push(
      `${where} A person will review the work here: they comment ${orList(keywords)}. ` +
        "Do not answer on their behalf; wait: their verdict reaches you as a new event.",
    );
  } else {
    parts.push(where);
    if (node.prompt.trim() !== "") parts.push(node.prompt.trim());
    parts.push(
      "When this node's work is done, finish it with exactly one of these commands, run from " +
        "this session:\n" + finishLines(node).join("\n"),
    );
  }
  return parts.join("\n\n");
}

/** The marked comment a gate posts on entering: who may resolve it, and how. */
export function gateRequestText(
  loop: LoopDef,
  node: LoopNode,
  keywords: Record<string, string>,
): string {
  const outcomes = gateOutcomes(node, keywords);
  const list = orList(outcomes.map((out) => gateKeyword(out, keywords)));
  const leads = outcomes.map((out) => `\`${gateKeyword(out, keywords)}\` → ${node.next[out]}`);
  return `⏸️ **the-loop** is waiting for a review at ${node.id}: comment ${list}\n\n` +
    `(loop \`${loop.name}\`, phase \`${node.phase}\`; ${leads.join(", ")}; ` +
    "only an authorized person's comment counts.)";
}

/** The marked comment saying the item was parked at `node`, and how to continue. */
export function escalationText(
  o: { ref: string; node: LoopNode; attempts: number; resumeKeyword: string },
): string {
  const keyword = o.resumeKeyword.trim()
    ? `an authorized person comments \`${o.resumeKeyword.trim()}\`, or `
    : "";
  return `⚠️ **the-loop** parked ${o.ref} at \`${o.node.id}\`: the node was entered ` +
    `${o.attempts} times (maxAttempts ${o.node.maxAttempts}), and its session is paused.\n\n` +
    `To continue, ${keyword}an operator runs \`the-loop sessions resume ${o.ref}\`; the ` +
    `node's attempts then start over.`;
}
