/**
 * One move of an item's position, in the one order every move keeps (an entry at a spawn, an
 * agent's claim, a person's verdict, a closure):
 *
 * 1. the position is written (atomically) — before any side effect; a write that fails is
 *    `loop.fault` and nothing else happens;
 * 2. `phase_changed`, when the phase changed, the loop was entered or a terminal node reached;
 * 3. the phase is published: the item carries one `loop:<phase>` label, the previous one
 *    removed (best-effort: `loop.label_failed`), unless the hook said `notify: false`;
 * 4. `loop.entered` / `loop.advanced` (`notified` says whether 3 happened);
 * 5. the entered node's entry: an escalation (`loop.escalated`, the session paused, one marked
 *    comment), a terminal node (`loop.completed`, the agent told), a human node (one marked
 *    request comment, then `waiting_for_input` kind `gate`, `loop.gate_waiting`), an agent node
 *    (its assignment delivered into the live session, behind the session's earlier deliveries).
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { LoopDef, LoopNode, Position } from "../../loops/mod.ts";
import type { SessionRecord } from "../../state/registry.ts";
import { repoOf } from "../../state/work_item.ts";
import type { Move } from "../../loops/mod.ts";
import { reasonOf, type RoutedEvent } from "../types.ts";
import type { Turn } from "./turn.ts";
import { askPhaseChanged, askWaiting } from "./_call_sites.ts";
import { postComment } from "./comments.ts";
import { gateKeywords, type LoopPorts, PHASE_LABEL_PREFIX, writePosition } from "./_loop_read.ts";
import { assignmentText, escalationText, gateRequestText, type VerdictNote } from "./_loop_text.ts";

/** What a move is, beyond the machine's answer. */
export interface MoveOptions {
  /** What moved it: an entry at a spawn, a claim, a verdict, a closure (no entry: completed). */
  kind: "enter" | "agent" | "gate" | "close";
  /** The position before the move (`undefined`: the item enters its loop). */
  before?: Position;
  /** The phases whose labels go besides `before`'s (a reopened item's finished walk's). */
  stale?: (string | undefined)[];
  /** The live session, to deliver the entered node's assignment into (none: nothing delivered). */
  live?: SessionRecord;
  /** Deliver the entered agent node's assignment (false at a spawn: the spawn prompt had it). */
  deliver: boolean;
  /** The verdict that made the move (the next node's assignment begins with it). */
  verdict?: VerdictNote;
  /** The outcome and who moved it, for the events. */
  outcome: string;
  by: string;
}

/** What a move did: whether the position was written (false: a fault, nothing else done). */
export interface Moved {
  written: boolean;
  notified: boolean;
}

/** Applies `move` of `loop` (see the module doc). */
export async function applyMove(
  turn: Turn,
  ports: LoopPorts,
  loop: LoopDef,
  move: Move,
  o: MoveOptions,
): Promise<Moved> {
  const pos = move.position;
  if (!(await writePosition(turn, ports, pos))) return { written: false, notified: false };
  let notified = false;
  if (move.change) {
    const { notify } = await askPhaseChanged(turn, move.change);
    if (notify) {
      notified = true;
      const to = pos.phase;
      // the label the item carries: the last one published (a `notify: false` left it), and the
      // phase it came from (a position from before `published` was kept)
      const from = [...(o.stale ?? []), o.before?.published, o.before?.phase];
      if (await publish(turn, { from, to }) && pos.published !== to) {
        await writePosition(turn, ports, { ...pos, published: to });
      }
    }
  }
  if (o.kind === "enter") {
    turn.emit("loop.entered", { loop: loop.name, node: pos.node, phase: pos.phase, notified });
  } else if (o.kind === "close") {
    turn.emit("loop.completed", {
      loop: loop.name,
      node: pos.node,
      phase: pos.phase,
      by: o.by,
      closed: true,
      notified,
    });
    return { written: true, notified };
  } else if (o.before) {
    turn.emit("loop.advanced", {
      loop: loop.name,
      from: o.before.node,
      to: pos.node,
      outcome: o.outcome,
      actor: move.entered.actor ?? "",
      by: o.by,
      notified,
    });
  }
  await entry(turn, loop, move, o, notified);
  return { written: true, notified };
}

/**
 * One `loop:<to>` label on the item, each `loop:<from>` other than it removed; failures are
 * `loop.label_failed`. True when the new label was added.
 */
async function publish(
  turn: Turn,
  o: { from: (string | undefined)[]; to: string },
): Promise<boolean> {
  const { github } = turn.deps;
  const item = turn.event.workItem;
  const add = `${PHASE_LABEL_PREFIX}${o.to}`;
  let added = false;
  if (github.addLabels) {
    try {
      await github.addLabels(repoOf(item), item.number, [add]);
      added = true;
    } catch (err) {
      turn.emit("loop.label_failed", { label: add, op: "add", error: messageOf(err) }, "warning");
    }
  }
  if (!github.removeLabel) return added;
  const stale = new Set(o.from.filter((p): p is string => !!p && p !== o.to));
  for (const phase of stale) {
    const remove = `${PHASE_LABEL_PREFIX}${phase}`;
    try {
      await github.removeLabel(repoOf(item), item.number, remove);
    } catch (err) {
      turn.emit(
        "loop.label_failed",
        { label: remove, op: "remove", error: messageOf(err) },
        "warning",
      );
    }
  }
  return added;
}

async function entry(
  turn: Turn,
  loop: LoopDef,
  move: Move,
  o: MoveOptions,
  notified: boolean,
): Promise<void> {
  const node = move.entered;
  const keywords = gateKeywords(turn.config);
  if (move.escalated) return await escalate(turn, loop, move);
  if (node.terminal) {
    turn.emit("loop.completed", {
      loop: loop.name,
      node: node.id,
      phase: node.phase,
      by: o.by,
      closed: false,
      notified,
    });
    if (o.live) {
      deliverPrompt(turn, o.live, assignmentText(loop, node, { verdict: o.verdict, keywords }));
    }
    return;
  }
  if (node.actor === "human") return await openGate(turn, loop, node, o);
  if (o.deliver && o.live) {
    deliverPrompt(turn, o.live, assignmentText(loop, node, { verdict: o.verdict, keywords }));
  }
}

/** A human node entered: one marked request comment, then `waiting_for_input` kind `gate`. */
async function openGate(turn: Turn, loop: LoopDef, node: LoopNode, o: MoveOptions): Promise<void> {
  const keywords = gateKeywords(turn.config);
  const url = await postComment(turn, "loop", gateRequestText(loop, node, keywords));
  await askWaiting(turn, {
    kind: "gate",
    node: node.id,
    actor: "",
    loop: loop.name,
    question: "",
    summary: "",
  });
  turn.emit("loop.gate_waiting", {
    loop: loop.name,
    node: node.id,
    phase: node.phase,
    comment_url: url ?? null,
  });
  // the agent learns it waits (its earlier node's verdict, if a person gave one, first)
  if (o.deliver && o.live) {
    deliverPrompt(turn, o.live, assignmentText(loop, node, { verdict: o.verdict, keywords }));
  }
}

/** Parked: `loop.escalated`, the session paused, one marked comment saying how to continue. */
async function escalate(turn: Turn, loop: LoopDef, move: Move): Promise<void> {
  const node = move.entered;
  const attempts = move.position.attempts[node.id] ?? 0;
  turn.emit("loop.escalated", {
    loop: loop.name,
    node: node.id,
    attempts,
    max_attempts: node.maxAttempts,
  }, "warning");
  try {
    await turn.deps.sessions.update(turn.ref, { status: "paused" });
  } catch (err) {
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
  }
  await postComment(
    turn,
    "loop",
    escalationText({
      ref: turn.ref,
      node,
      attempts,
      resumeKeyword: turn.config.control.keywords.resume ?? "",
    }),
  );
}

/**
 * Hands `prompt` to the live session's deliveries (behind its earlier ones), not waited for: the
 * agent may be the one waiting for this turn (its `the-loop advance`). A delivery that fails is
 * `loop.assignment_failed`; the next spawn's prompt carries the assignment anyway.
 */
export function deliverPrompt(turn: Turn, live: SessionRecord, prompt: string): void {
  const event: RoutedEvent = {
    ...turn.event,
    kind: "item",
    ghEvent: "the-loop loop",
    action: "",
    deliveryId: `loop-${turn.deps.uuid()}`,
    text: "",
  };
  turn.queue(live, prompt, event).later.then(
    (h) => {
      if (h.outcome.status !== "delivered") {
        turn.emit("loop.assignment_failed", {
          status: h.outcome.status,
          reason: reasonOf(h.outcome),
        }, "warning");
      }
    },
    (err) =>
      turn.emit("loop.assignment_failed", { status: "failed", reason: messageOf(err) }, "warning"),
  );
}
