/**
 * The loop state machine: pure functions from a loop and a position to the next position, with
 * no I/O and the clock passed in, so the runtime writes the position (atomically, first) and
 * only then acts on what a move says.
 *
 * | move                  | what it does                                                                   |
 * | --------------------- | ------------------------------------------------------------------------------ |
 * | {@linkcode enter}     | into the loop's `start` (an `enter` transition); the phase change always set   |
 * | {@linkcode advance}   | along the current node's `next[outcome]` (an `agent` or `gate` transition)     |
 * | {@linkcode complete}  | the item closed: `completed`, at the loop's one terminal node (a `close`)     |
 * | {@linkcode resume}    | an escalated item moves again, the node's attempts start over (`resume`)      |
 *
 * Each entry into a node counts in `attempts`; an agent node entered more than its
 * `maxAttempts` times parks the item (`escalated`, an `escalate` transition). Entering a human
 * node starts its wait (`waitingSince`); a terminal node completes the loop. A phase change is
 * reported when the phase differs, on entry, and at a terminal node (and at a close).
 *
 * {@linkcode checkClaim} decides whether the agent's `the-loop advance` may move the item, and
 * answers a replayed claim (for a node already left) with a no-op.
 *
 * ```ts
 * const first = enter(loop, { ref, now });
 * const next = advance(loop, first.position, { outcome: "done", kind: "agent", by: "agent", now });
 * next.entered.id; // "review"
 * ```
 *
 * @module
 */
import { DEFAULT_GATE_KEYWORDS, gateKeyword } from "./verdict.ts";
import type { LoopDef, LoopNode, PhaseChange, Position, Transition } from "./types.ts";

/** One move: the position to write, the phase change to tell (when any), the node entered. */
export interface Move {
  position: Position;
  /** Set when the phase changed, on entry, and at a terminal node (`phase_changed`'s facts). */
  change?: PhaseChange;
  /** The node the item now stands at. */
  entered: LoopNode;
  /** The move parked the item: an agent node entered more than `maxAttempts` times. */
  escalated: boolean;
}

/** Who the-loop's own moves are by (an entry, an escalation). */
export const LOOP_ACTOR = "the-loop";

function nodeOf(loop: LoopDef, id: string): LoopNode {
  const node = loop.nodes[id];
  if (!node) throw new Error(`loop "${loop.name}" has no node "${id}"`);
  return node;
}

function transition(t: Omit<Transition, "at">, now: Date): Transition {
  return { at: now.toISOString(), ...t };
}

function changeOf(
  loop: LoopDef,
  from: { node: string; phase: string },
  to: LoopNode,
  outcome: string,
): PhaseChange {
  return {
    loop: loop.name,
    fromNode: from.node,
    toNode: to.id,
    fromPhase: from.phase,
    toPhase: to.phase,
    outcome,
    actor: to.actor ?? "",
    terminal: to.terminal,
  };
}

/** The status and wait of a position standing at `node`. */
function standing(node: LoopNode, now: Date): Pick<Position, "status" | "waitingSince"> {
  if (node.terminal) return { status: "completed", waitingSince: null };
  return { status: "active", waitingSince: node.actor === "human" ? now.toISOString() : null };
}

/** The item enters its loop's start node (at a spawn). The phase change is always set. */
export function enter(loop: LoopDef, o: { ref: string; now: Date }): Move {
  const start = nodeOf(loop, loop.start);
  const position: Position = {
    version: 1,
    workItem: o.ref,
    loop: loop.name,
    node: start.id,
    phase: start.phase,
    ...standing(start, o.now),
    attempts: { [start.id]: 1 },
    history: [
      transition(
        { kind: "enter", from: "", to: start.id, outcome: "", by: LOOP_ACTOR },
        o.now,
      ),
    ],
    updatedAt: o.now.toISOString(),
    ...(start.terminal ? { finished: true } : {}),
  };
  return {
    position,
    change: changeOf(loop, { node: "", phase: "" }, start, ""),
    entered: start,
    escalated: false,
  };
}

/**
 * Moves along the current node's `next[outcome]`: the entered node's attempts go up by one; an
 * agent node entered more than `maxAttempts` times parks the item (`escalated`, an `escalate`
 * transition after the move, no wait). Throws on an outcome the node does not have (callers
 * check with {@linkcode checkClaim} or a verdict first).
 */
export function advance(
  loop: LoopDef,
  pos: Position,
  o: { outcome: string; kind: "agent" | "gate"; by: string; now: Date },
): Move {
  const from = nodeOf(loop, pos.node);
  const toId = Object.hasOwn(from.next, o.outcome) ? from.next[o.outcome] : undefined;
  if (toId === undefined) {
    throw new Error(
      `node "${from.id}" of loop "${loop.name}" has no outcome "${o.outcome}" ` +
        `(its outcomes: ${Object.keys(from.next).join(", ") || "none"})`,
    );
  }
  const to = nodeOf(loop, toId);
  const attempts = { ...pos.attempts, [to.id]: (pos.attempts[to.id] ?? 0) + 1 };
  const history = [
    ...pos.history,
    transition({ kind: o.kind, from: from.id, to: to.id, outcome: o.outcome, by: o.by }, o.now),
  ];
  const escalated = to.actor === "agent" && !to.terminal && attempts[to.id] > to.maxAttempts;
  if (escalated) {
    history.push(transition(
      { kind: "escalate", from: to.id, to: to.id, outcome: "", by: LOOP_ACTOR },
      o.now,
    ));
  }
  const position: Position = {
    ...withoutNotes(pos),
    node: to.id,
    phase: to.phase,
    ...(escalated ? { status: "escalated", waitingSince: null } : standing(to, o.now)),
    attempts,
    history,
    updatedAt: o.now.toISOString(),
    ...(to.terminal ? { finished: true } : {}),
  };
  const changed = to.phase !== pos.phase || to.terminal;
  return {
    position,
    ...(changed ? { change: changeOf(loop, pos, to, o.outcome) } : {}),
    entered: to,
    escalated,
  };
}

/**
 * `pos` without what belongs to one moment of it: what a park held back (told at the resume, or
 * stale once the item moved on) and the open-finished mark (a move or a close ends it).
 */
function withoutNotes(pos: Position): Position {
  const { held: _held, finished: _finished, ...rest } = pos;
  return rest;
}

/** The loop's one terminal node, or `undefined` when it has several. */
export function soleTerminal(loop: LoopDef): LoopNode | undefined {
  const terminals = Object.values(loop.nodes).filter((n) => n.terminal);
  return terminals.length === 1 ? terminals[0] : undefined;
}

/**
 * Whether the item's walk is over for good: completed and closed since (or completed before
 * the open-finished mark was kept: such a position was closed, as a walk then was only
 * completed at a terminal node or a close). A reopened item begins a new walk.
 */
export function closedSince(pos: Position): boolean {
  return pos.status === "completed" && pos.finished !== true;
}

/** The `close` transition of a walk already finished at `pos.node` (no loop needed). */
export function closeFinished(pos: Position, o: { by: string; now: Date }): Position {
  return {
    ...withoutNotes(pos),
    history: [
      ...pos.history,
      transition({ kind: "close", from: pos.node, to: pos.node, outcome: "", by: o.by }, o.now),
    ],
    updatedAt: o.now.toISOString(),
  };
}

/**
 * The item closed: its loop completes wherever it stood (a `close` transition by `by`). A loop
 * with one terminal node moves there (`done` in the built-ins: the phase change goes to it, as
 * the published label does); with several it stays at its node, the phase unchanged. Either way
 * the phase change says `terminal: true`. A walk already finished at a terminal node only has
 * the close recorded ({@linkcode closeFinished}: no phase change, it was told on arrival), so a
 * reopened item begins a new walk; one already closed is returned as it is.
 */
export function complete(loop: LoopDef, pos: Position, o: { by: string; now: Date }): Move {
  if (closedSince(pos)) return { position: pos, entered: nodeOf(loop, pos.node), escalated: false };
  if (pos.status === "completed") {
    return { position: closeFinished(pos, o), entered: nodeOf(loop, pos.node), escalated: false };
  }
  const node = nodeOf(loop, pos.node);
  const to = soleTerminal(loop) ?? node;
  const position: Position = {
    ...withoutNotes(pos),
    node: to.id,
    phase: to.phase,
    status: "completed",
    waitingSince: null,
    history: [
      ...pos.history,
      transition({ kind: "close", from: node.id, to: to.id, outcome: "", by: o.by }, o.now),
    ],
    updatedAt: o.now.toISOString(),
  };
  return {
    position,
    entered: to,
    escalated: false,
    change: { ...changeOf(loop, pos, to, ""), terminal: true },
  };
}

/**
 * An escalated item moves again: active at the same node, whose attempts start over at 1 (a
 * `resume` transition by `by`). A human node's wait starts anew. Throws when the item is not
 * escalated.
 */
export function resume(loop: LoopDef, pos: Position, o: { by: string; now: Date }): Move {
  if (pos.status !== "escalated") {
    throw new Error(`${pos.workItem} is ${pos.status} at "${pos.node}", not escalated`);
  }
  const node = nodeOf(loop, pos.node);
  const position: Position = {
    ...pos,
    ...standing(node, o.now),
    attempts: { ...pos.attempts, [node.id]: 1 },
    history: [
      ...pos.history,
      transition({ kind: "resume", from: node.id, to: node.id, outcome: "", by: o.by }, o.now),
    ],
    updatedAt: o.now.toISOString(),
  };
  return { position, entered: node, escalated: false };
}

/** Whether the agent's claim may move the item, and what to answer when not. */
export type ClaimCheck =
  | { ok: true }
  | {
    ok: false;
    code:
      | "not-started"
      | "completed"
      | "escalated"
      | "human-node"
      | "unknown-outcome"
      | "not-current"
      | "already-past";
    message: string;
    /** 0 for a replayed claim (`already-past`: nothing to do), else 1. */
    exit: 0 | 1;
  };

/** Whether `node` was entered and then left (a claim naming it is a replay). */
function wasLeft(pos: Position, node: string): boolean {
  return pos.history.some((t) => t.from === node && t.to !== node);
}

/** `a`, `a or b`, `a, b or c`. */
function either(items: string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/**
 * Checks the agent's `the-loop advance --outcome O [--node N]` against where the item stands.
 * A `--node` other than the current one that the item already left is a replay (exit 0,
 * "already past"); one it never left is refused naming the current node. A human node is a
 * person's to resolve (`keywords`: the gate keywords, default {@linkcode DEFAULT_GATE_KEYWORDS}).
 */
export function checkClaim(
  loop: LoopDef,
  pos: Position | undefined,
  o: { outcome: string; node?: string; keywords?: Record<string, string> },
): ClaimCheck {
  const no = (code: Exclude<ClaimCheck, { ok: true }>["code"], message: string, exit: 0 | 1 = 1) =>
    ({ ok: false, code, message, exit }) as const;
  if (!pos) {
    return no(
      "not-started",
      "the item has not entered a loop yet (it enters its loop when its session spawns); " +
        "nothing to advance",
    );
  }
  if (o.node !== undefined && o.node !== pos.node) {
    if (wasLeft(pos, o.node)) return no("already-past", `already past ${o.node}`, 0);
    const known = Object.hasOwn(loop.nodes, o.node)
      ? ""
      : ` (loop "${loop.name}" has no such node)`;
    return no(
      "not-current",
      `the item is at ${pos.node}, not ${o.node}${known}; finish ${pos.node} first ` +
        `(\`the-loop advance --outcome O --node ${pos.node}\`)`,
    );
  }
  if (pos.status === "completed") {
    return no(
      "completed",
      `the loop "${pos.loop}" is completed (at ${pos.node}); nothing to advance`,
    );
  }
  if (pos.status === "escalated") {
    return no(
      "escalated",
      `the item is escalated at ${pos.node} (entered more than its maxAttempts times); ` +
        "it waits for a person to resume it before it can advance",
    );
  }
  const node = nodeOf(loop, pos.node);
  const outcomes = Object.keys(node.next);
  if (node.actor === "human") {
    const words = outcomes.map((x) => `\`${gateKeyword(x, o.keywords ?? DEFAULT_GATE_KEYWORDS)}\``);
    return no(
      "human-node",
      `${node.id} waits for a person: comment ${either(words)}; the agent cannot resolve it`,
    );
  }
  if (!Object.hasOwn(node.next, o.outcome)) {
    return no(
      "unknown-outcome",
      `${node.id} has no outcome "${o.outcome}"; valid outcomes: ${outcomes.join(", ")}`,
    );
  }
  return { ok: true };
}
