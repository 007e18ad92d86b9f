/**
 * Catalog entries of the loop runtime (merged into {@linkcode EVENT_TYPES} by `catalog.ts`): an
 * item entering its loop at a spawn, each move (an agent's claim, a person's verdict at a gate),
 * a claim or a verdict that changed nothing, an escalation and its resume, the loop's
 * completion, and the faults that never cost a delivery.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const ITEM = "string — the work item's ref, e.g. github:owner/repo#12";
const DELIVERY =
  "string — the turn's delivery id (a comment's, the poller's poll-…, or verb-<uuid> for a verb)";
const LOOP = "string — the loop's name, e.g. pdlc";
const NODE = "string — the node's id, e.g. design-review";
const PHASE = "string — the node's phase (its loop:<phase> label, without the prefix)";
const NOTIFIED =
  "boolean — whether the phase was published (the loop:<phase> label); false when phase_changed said notify: false or the phase did not change";
const TURN = { work_item: ITEM, delivery_id: DELIVERY };

/** The loop event types. */
export const LOOPS_EVENTS: Record<string, EventType> = {
  "loop.entered": {
    description:
      "A work item entered its loop's start node at a spawn (its position written first).",
    level: "info",
    fields: { ...TURN, loop: LOOP, node: NODE, phase: PHASE, notified: NOTIFIED },
  },
  "loop.advanced": {
    description: "A work item's position moved along an edge: an agent's claim or a verdict.",
    level: "info",
    fields: {
      ...TURN,
      loop: LOOP,
      from: "string — the node it left",
      to: "string — the node it entered",
      outcome: "string — the outcome that routed the edge",
      actor: 'string — the entered node\'s actor: agent | human | "" (a terminal node)',
      by: "string — who moved it: agent (a claim) or the person's login (a verdict)",
      notified: NOTIFIED,
    },
  },
  "loop.claim_refused": {
    description:
      "An agent's the-loop advance changed nothing: refused (exit 1), or a replayed claim (already-past, exit 0).",
    level: "info",
    fields: {
      ...TURN,
      loop: LOOP,
      node: "string | null — the node the item stands at (null: it never entered its loop)",
      outcome: "string — the outcome claimed",
      claimed_node: "string | null — the --node given, null when none",
      code:
        "string — not-started | completed | escalated | human-node | unknown-outcome | not-current | already-past",
    },
  },
  "loop.gate_waiting": {
    description:
      "A work item entered a human node: its request comment was posted and waiting_for_input (kind gate) asked.",
    level: "info",
    fields: {
      ...TURN,
      loop: LOOP,
      node: NODE,
      phase: PHASE,
      comment_url: "string | null — the request comment's URL (null when it could not be posted)",
    },
  },
  "loop.verdict_ignored": {
    description:
      "A gate keyword in a comment moved nothing: no gate waits, its author may not decide, it names two verdicts, or a hook refused it.",
    level: "info",
    fields: {
      ...TURN,
      reason: "string — not-at-gate | unauthorized | ambiguous | not-an-outcome | input-refused",
      node: "string | null — the node the item stands at (null: it walks no loop)",
      actor: 'string — the comment\'s author ("" when nobody may act)',
      outcomes: "string[] — ambiguous only: the verdicts the comment named",
      detail: "string — input-refused only: the hook's reason",
    },
  },
  "loop.escalated": {
    description:
      "A work item entered the same agent node more than maxAttempts times: parked, its session paused, one comment posted.",
    level: "warning",
    fields: {
      ...TURN,
      loop: LOOP,
      node: NODE,
      attempts: "number — how many times the node was entered",
      max_attempts: "number — the node's maxAttempts",
    },
  },
  "loop.resumed": {
    description:
      "A parked (escalated) work item was resumed with its session: the node's attempts start over.",
    level: "info",
    fields: {
      work_item: ITEM,
      loop: LOOP,
      node: NODE,
      actor: "string — who resumed it",
      origin: "string — comment (the resume keyword) | cli (sessions resume)",
    },
  },
  "loop.completed": {
    description:
      "A work item's loop completed: a terminal node was reached, or the item closed wherever it stood.",
    level: "info",
    fields: {
      ...TURN,
      loop: LOOP,
      node:
        "string — the terminal node reached (at a close: the loop's one terminal node, else the node it stood at)",
      phase: PHASE,
      by: "string — who: agent, a person's login, or the closing login (the-loop when unknown)",
      closed: "boolean — true when the item's closing completed it",
      notified: NOTIFIED,
    },
  },
  "loop.label_failed": {
    description:
      "A loop:<phase> label could not be added or removed (best-effort: the move stands).",
    level: "warning",
    fields: {
      ...TURN,
      label: "string — the label, e.g. loop:design",
      op: "string — add | remove",
      error: "string — what GitHub or the network said",
    },
  },
  "loop.assignment_failed": {
    description:
      "A node's assignment could not be delivered into the live session (the next spawn's prompt carries it).",
    level: "warning",
    fields: {
      ...TURN,
      status: "string — the delivery's outcome: settled | failed",
      reason: "string | null — why",
    },
  },
  "loop.position_corrupt": {
    description:
      "A position file did not parse or is not a position: kept aside (never deleted), the item read as never entered.",
    level: "warning",
    fields: {
      work_item: ITEM,
      path: "string — the file as it was",
      kept_as: "string — where it was moved (<slug>.json.corrupt-<time>)",
      error: "string — what was wrong with it",
    },
  },
  "loop.fault": {
    description:
      "A loop step failed (a position read or write, the loops, a resume): the turn went on as if the item walked no loop.",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: "string — the turn's delivery id (absent for a sessions verb)",
      step: "string — read | write | loops | resume",
      error: "string — what failed",
    },
  },
  "loop.unknown": {
    description:
      "A work item's loop is declared nowhere (a routing.loop, a control record's, or a position's): nothing entered or moved.",
    level: "warning",
    fields: { ...TURN, loop: LOOP, known: "string[] — the loops that are declared" },
  },
};
