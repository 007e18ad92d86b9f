/**
 * The loop runtime inside a turn: entering the item's loop at a spawn (after `session_spawned`),
 * the agent's `advance` claim, a person's keyword comment at a gate (or their `verdict` verb:
 * `the-loop gate`, the status page's buttons), escalation, and the loop's
 * completion at closure. Each move writes the position first, then asks `phase_changed`, then
 * publishes the `loop:<phase>` label, then does the entered node's entry (an agent node's
 * assignment delivered; a human node's request comment and `waiting_for_input`): see
 * `_loop_move.ts`.
 *
 * A loop fault (an unreadable position, a failed write) never costs a delivery: it is an event
 * (`loop.fault`), and the turn goes on as if the item walked no loop.
 *
 * @module
 */
import {
  advance,
  checkClaim,
  closedSince,
  closeFinished,
  complete,
  enter,
  parseVerdict,
} from "../../loops/mod.ts";
import type { LoopDef, LoopSet, Position } from "../../loops/mod.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { PointName } from "../../lifecycle/sdk/mod.ts";
import type { VerbResult } from "../types.ts";
import type { Handled, Turn } from "./turn.ts";
import { askInput } from "./_call_sites.ts";
import {
  chosenLoop,
  fault,
  gateKeywords,
  loopOf,
  type LoopPorts,
  loopPorts,
  PHASE_LABEL_PREFIX,
  readPosition,
  standing,
  writePosition,
} from "./_loop_read.ts";
import { applyMove, deliverPrompt } from "./_loop_move.ts";
import { assignmentText, verdictText } from "./_loop_text.ts";

/**
 * The `$graph_context` of a spawn prompt: the assignment of the node the item will be at — its
 * current node when it stands in its loop (what a park held back first), the terminal node of
 * a walk it finished (not closed since), else its loop's start node. `""` when no loop runs.
 */
export async function loopContext(turn: Turn): Promise<string> {
  const ports = loopPorts(turn);
  if (!ports) return "";
  const read = await readPosition(turn, ports);
  if (!read.ok) return "";
  const keywords = gateKeywords(turn.config);
  const pos = read.position;
  const chosen = await chosenLoop(turn);
  if (pos && (standing(pos) || finishedWalk(pos, chosen))) {
    const loop = loopOf(turn, ports, pos.loop);
    const node = loop?.nodes[pos.node];
    if (!loop || !node) return "";
    const text = withHeld(pos, assignmentText(loop, node, { keywords }));
    if (pos.status !== "escalated") return text;
    return `${text}\n\nThe item is parked here (escalated): wait until a person resumes it.`;
  }
  const loop = loopOf(turn, ports, chosen);
  const start = loop?.nodes[loop.start];
  return loop && start ? assignmentText(loop, start, { keywords }) : "";
}

/**
 * Whether `pos` is a walk of `loop` that reached its terminal node and was not closed since: a
 * later spawn does not begin it again (a reopened item, or another loop chosen, does).
 */
function finishedWalk(pos: Position | undefined, loop: string): boolean {
  return pos?.finished === true && pos.loop === loop; // set only at a terminal node
}

/** `text` after what the position held back from the agent (a verdict a park kept), if any. */
function withHeld(pos: Position, text: string): string {
  return pos.held ? `${pos.held}\n\n${text}` : text;
}

/** The loop name the item walks, for the lifecycle points' `loop` fact (`""`: none). */
export async function loopName(turn: Turn): Promise<string> {
  const ports = loopPorts(turn);
  if (!ports) return "";
  try {
    const pos = await ports.positions.get(turn.ref);
    if (standing(pos)) return pos.loop;
  } catch { /* a fact, not a step: the chosen loop then */ }
  return await chosenLoop(turn);
}

/**
 * The `loop` fact of `point`'s context: {@linkcode loopName}, or `""` without a read when no
 * hook handles `point` (every comment asks; the position's read showed in the burst bench).
 */
export async function loopFact(turn: Turn, point: PointName): Promise<string> {
  let wanted = true;
  try {
    wanted = turn.deps.hooks.handles?.(point) ?? true;
  } catch { /* then read it */ }
  return wanted ? await loopName(turn) : "";
}

/** An item event adding or removing a `loop:<phase>` label while loops run (the loop's publish). */
export function isPhaseLabel(turn: Turn): boolean {
  const { event } = turn;
  return turn.deps.positions !== undefined && event.kind === "item" &&
    (event.action === "labeled" || event.action === "unlabeled") &&
    (event.label ?? "").startsWith(PHASE_LABEL_PREFIX);
}

/** The loops' names a start may choose from; `undefined` when no loop runs in this dispatcher. */
export function knownLoops(turn: Turn): string[] | undefined {
  const ports = loopPorts(turn);
  return ports ? [...ports.set.keys()] : undefined;
}

/** Whether the item is parked by its loop (escalated); a fault reads as not parked. */
export async function parked(turn: Turn): Promise<boolean> {
  const ports = loopPorts(turn);
  if (!ports) return false;
  const read = await readPosition(turn, ports);
  return read.ok && read.position?.status === "escalated";
}

/**
 * After a resume of a parked item (its position resumed by the control action, the daemon's or
 * the CLI's): the agent is given its node's assignment again, its attempts started over, after
 * what the park held back (the verdict that sent it back), which is then cleared. Whether an
 * assignment was delivered.
 */
export async function resumedLoop(
  turn: Turn,
  session: SessionRecord | undefined,
): Promise<boolean> {
  const ports = loopPorts(turn);
  if (!ports || session?.status !== "active") return false;
  const read = await readPosition(turn, ports);
  const pos = read.ok ? read.position : undefined;
  if (pos?.status !== "active") return false;
  const loop = ports.set.get(pos.loop);
  const node = loop?.nodes[pos.node];
  if (!loop || !node || node.actor !== "agent") return false;
  const keywords = gateKeywords(turn.config);
  deliverPrompt(turn, session, withHeld(pos, assignmentText(loop, node, { keywords })));
  if (pos.held) await clearHeld(turn, ports, pos);
  return true;
}

/** The position without what it held back (told now). */
async function clearHeld(turn: Turn, ports: LoopPorts, pos: Position): Promise<void> {
  const { held: _told, ...rest } = pos;
  await writePosition(turn, ports, rest);
}

/** After `session_spawned`: the item enters its loop's start node, unless it stands in it already. */
export async function enterLoop(turn: Turn, record: SessionRecord): Promise<void> {
  const ports = loopPorts(turn);
  if (!ports) return;
  const name = await chosenLoop(turn);
  const loop = loopOf(turn, ports, name);
  if (!loop) return; // the session runs all the same
  const read = await readPosition(turn, ports);
  if (!read.ok) return;
  const pos = read.position;
  // a redelivered (or repeated) spawn never rewinds an item already in its loop; an active one
  // whose spawn prompt told what a park held back has it cleared
  if (standing(pos)) {
    if (pos.status === "active" && pos.held) await clearHeld(turn, ports, pos);
    return;
  }
  // nor begins again a walk it finished (the item was not closed since, the loop is the same)
  if (finishedWalk(pos, name)) return;
  const move = enter(loop, { ref: turn.ref, now: turn.deps.now() });
  await applyMove(turn, ports, loop, move, {
    kind: "enter",
    // a finished walk before (a reopened item): its label goes when the new one comes
    ...(pos ? { stale: [pos.published, pos.phase] } : {}),
    live: record,
    deliver: false,
    outcome: "",
    by: "the-loop",
  });
}

/** The loop ports and the item's position for an agent or operator verb, or why there are none. */
async function verbPosition(
  turn: Turn,
): Promise<{ ports: LoopPorts; pos: Position | undefined } | VerbResult> {
  const ports = loopPorts(turn);
  if (!ports) return { exit: 1, message: `no loop runs for ${turn.ref} in this daemon` };
  const read = await readPosition(turn, ports);
  if (!read.ok) {
    return {
      exit: 1,
      message: `the loop position of ${turn.ref} cannot be read (see the event log, loop.fault)`,
    };
  }
  return { ports, pos: read.position };
}

/** `the-loop advance`: the agent's claim that its node is done with `outcome`. */
export async function claim(
  turn: Turn,
  req: { outcome: string; node?: string },
): Promise<VerbResult> {
  const found = await verbPosition(turn);
  if ("exit" in found) return found;
  const { ports, pos } = found;
  const loop = loopOf(turn, ports, pos?.loop ?? await chosenLoop(turn));
  if (!loop) {
    return { exit: 1, message: `the loop of ${turn.ref} is not declared (any more)` };
  }
  const check = checkClaim(loop, pos, {
    outcome: req.outcome,
    ...optionalNode(req.node),
    keywords: gateKeywords(turn.config),
  });
  if (!check.ok) {
    turn.emit("loop.claim_refused", {
      loop: loop.name,
      node: pos?.node ?? null,
      outcome: req.outcome,
      claimed_node: req.node ?? null,
      code: check.code,
    });
    return { exit: check.exit, message: check.message, data: dataOf(pos) };
  }
  const at = pos!;
  const move = advance(loop, at, {
    outcome: req.outcome,
    kind: "agent",
    by: "agent",
    now: turn.deps.now(),
  });
  const live = await liveOf(turn);
  const moved = await applyMove(turn, ports, loop, move, {
    kind: "agent",
    before: at,
    live,
    deliver: true,
    outcome: req.outcome,
    by: "agent",
  });
  if (!moved.written) {
    return {
      exit: 1,
      message: `the move of ${turn.ref} could not be recorded (see the event log, loop.fault); ` +
        "nothing changed: run the command again",
    };
  }
  return {
    exit: 0,
    message: movedMessage(move.position, at.node),
    data: dataOf(move.position),
  };
}

function optionalNode(node: string | undefined): { node?: string } {
  return node !== undefined && node !== "" ? { node } : {};
}

function dataOf(pos: Position | undefined): Record<string, unknown> {
  return pos ? { node: pos.node, phase: pos.phase, status: pos.status } : {};
}

function movedMessage(pos: Position, from: string): string {
  switch (pos.status) {
    case "completed":
      return `${from} done: the loop ${pos.loop} reached ${pos.node}; it is complete`;
    case "escalated":
      return `${from} done, but ${pos.node} was entered too often: the item is parked ` +
        "(escalated) and its session paused until a person resumes it";
    case "active":
      return `${from} done: now at ${pos.node} (phase ${pos.phase})`;
  }
}

async function liveOf(turn: Turn): Promise<SessionRecord | undefined> {
  try {
    const live = await turn.deps.sessions.live(turn.ref);
    return live?.status === "active" ? live : undefined;
  } catch {
    return undefined;
  }
}

/** Every outcome a gate keyword may name: the human nodes' and the configured keywords'. */
function gateOutcomes(set: LoopSet, keywords: Record<string, string>): string[] {
  const all = new Set(Object.keys(keywords));
  for (const loop of set.values()) {
    for (const node of Object.values(loop.nodes)) {
      if (node.actor === "human") { for (const out of Object.keys(node.next)) all.add(out); }
    }
  }
  return [...all];
}

/**
 * A comment on an item: a gate keyword of an authorized person at a human node resolves it
 * (consumed, never delivered); a keyword anywhere else is settled and changes nothing. The
 * Handled to return, or `undefined` to go on as usual (no keyword, or a loop fault).
 */
export async function onGateComment(
  turn: Turn,
  _live: SessionRecord | undefined,
): Promise<Handled | undefined> {
  const ports = loopPorts(turn);
  if (!ports) return undefined;
  const { event } = turn;
  const keywords = gateKeywords(turn.config);
  // no keyword of any gate: an ordinary comment (the position is not even read)
  const any = parseVerdict(event.text, { outcomes: gateOutcomes(ports.set, keywords), keywords });
  if (!any.outcome && !any.ambiguous) return undefined;
  const read = await readPosition(turn, ports);
  if (!read.ok) return undefined;
  const pos = read.position;
  const loop = pos ? ports.set.get(pos.loop) : undefined;
  const node = pos && loop ? loop.nodes[pos.node] : undefined;
  if (!pos || !loop || !node || pos.status !== "active" || node.actor !== "human") {
    return ignored(turn, "not-at-gate", pos);
  }
  const verdict = parseVerdict(event.text, { outcomes: Object.keys(node.next), keywords });
  if (!event.actor) return ignored(turn, "unauthorized", pos, "unauthorized-actor");
  if (verdict.ambiguous || any.ambiguous) {
    turn.emit("loop.verdict_ignored", {
      reason: "ambiguous",
      node: pos.node,
      actor: event.actor,
      outcomes: verdict.ambiguous ?? any.ambiguous ?? [],
    }, "warning");
    return turn.settled("ambiguous");
  }
  if (!verdict.outcome) return ignored(turn, "not-an-outcome", pos);
  return await resolveGate(turn, ports, { loop, pos, outcome: verdict.outcome, by: event.actor });
}

function ignored(
  turn: Turn,
  reason: "not-at-gate" | "unauthorized" | "not-an-outcome",
  pos: Position | undefined,
  settle: "verdict-ignored" | "unauthorized-actor" = "verdict-ignored",
): Handled {
  turn.emit("loop.verdict_ignored", {
    reason,
    node: pos?.node ?? null,
    actor: turn.event.actor ?? "",
  });
  return turn.settled(settle);
}

async function resolveGate(
  turn: Turn,
  ports: LoopPorts,
  o: { loop: LoopDef; pos: Position; outcome: string; by: string; source?: "comment" | "verb" },
): Promise<Handled> {
  const gate = await askInput(turn, {
    kind: "command",
    command: o.outcome,
    text: "",
    loop: o.loop.name,
    ...(o.source ? { source: o.source, actor: o.by } : {}),
  });
  if (!gate.proceed) {
    turn.emit("loop.verdict_ignored", {
      reason: "input-refused",
      node: o.pos.node,
      actor: o.by,
      detail: gate.reason || `refused by ${gate.hook}`,
    });
    return turn.settled("input-refused");
  }
  turn.pickup();
  // the session's earlier deliveries first: the next node's assignment comes after them
  await turn.deps.deliveries.drain(turn.ref);
  const advanced = advance(o.loop, o.pos, {
    outcome: o.outcome,
    kind: "gate",
    by: o.by,
    now: turn.deps.now(),
  });
  const verdict = { node: o.pos.node, outcome: o.outcome, by: o.by, event: turn.event };
  // a verdict that parks the item (its next node entered too often) is told at the resume
  const move = advanced.escalated
    ? { ...advanced, position: { ...advanced.position, held: verdictText(verdict) } }
    : advanced;
  const moved = await applyMove(turn, ports, o.loop, move, {
    kind: "gate",
    before: o.pos,
    live: await liveOf(turn),
    deliver: true,
    verdict,
    outcome: o.outcome,
    by: o.by,
  });
  return turn.settled("verdict", moved.written);
}

/**
 * The `verdict` verb: a person's verdict at the item's gate, sent to the daemon (`the-loop gate
 * REF --outcome O`, the status page's approve and request-changes buttons) instead of written as
 * a keyword comment; from there the same path as the comment's (the `input_received` hooks, kind
 * `command`, source `verb`; the move; the next node's entry). Refused (exit 1, nothing moved):
 * no gate waits, an outcome the gate lacks (the valid ones listed), a hook's refusal.
 */
export async function gateVerdict(
  turn: Turn,
  req: { outcome: string; actor: string },
): Promise<VerbResult> {
  const found = await verbPosition(turn);
  if ("exit" in found) return found;
  const { ports, pos } = found;
  const loop = pos ? ports.set.get(pos.loop) : undefined;
  const node = pos && loop ? loop.nodes[pos.node] : undefined;
  const ignored = (reason: "not-at-gate" | "not-an-outcome") =>
    turn.emit("loop.verdict_ignored", { reason, node: pos?.node ?? null, actor: req.actor });
  if (!pos || !loop || !node || pos.status !== "active" || node.actor !== "human") {
    ignored("not-at-gate");
    const where = pos ? `it is at ${pos.node} (${pos.status})` : "it walks no loop yet";
    return {
      exit: 1,
      message: `${turn.ref} waits at no gate: ${where}; nothing was decided`,
      data: dataOf(pos),
    };
  }
  const outcomes = Object.keys(node.next);
  if (!outcomes.includes(req.outcome)) {
    ignored("not-an-outcome");
    return {
      exit: 1,
      message: `"${req.outcome}" is not an outcome of the gate ${pos.node} ` +
        `(its outcomes: ${outcomes.join(", ")}); nothing was decided`,
      data: dataOf(pos),
    };
  }
  const handled = await resolveGate(turn, ports, {
    loop,
    pos,
    outcome: req.outcome,
    by: req.actor,
    source: "verb",
  });
  const { outcome } = handled;
  if (outcome.status === "settled" && outcome.reason === "input-refused") {
    return {
      exit: 1,
      message: `the verdict on ${turn.ref} was refused by an input_received hook (see the ` +
        "event log, loop.verdict_ignored); nothing was decided",
    };
  }
  if (!handled.ok) {
    return {
      exit: 1,
      message: `the verdict on ${turn.ref} could not be recorded (see the event log, ` +
        "loop.fault); nothing changed: send it again",
    };
  }
  const after = await readPosition(turn, ports);
  const now = after.ok ? after.position : undefined;
  return {
    exit: 0,
    message: `${pos.node}: ${req.outcome} by ${req.actor}` +
      (now ? `; now at ${now.node} (${now.status})` : ""),
    data: dataOf(now),
  };
}

/**
 * At closure: the item's loop completes, wherever it stood (at the loop's one terminal node:
 * `machine.ts` `complete`). A walk that already reached its terminal node only has the close
 * recorded (its loop need not even be declared any more), so a reopened item begins a new walk
 * at its next spawn. A fault is `loop.fault`: the closure goes on.
 */
export async function completeLoop(turn: Turn): Promise<void> {
  const ports = loopPorts(turn);
  if (!ports) return;
  const read = await readPosition(turn, ports);
  if (!read.ok || !read.position) return;
  const pos = read.position;
  if (closedSince(pos)) return;
  const by = turn.event.actor || "the-loop";
  const now = turn.deps.now();
  try {
    if (!standing(pos)) {
      // told when the terminal node was reached: only the close is recorded
      await writePosition(turn, ports, closeFinished(pos, { by, now }));
      return;
    }
    const loop = loopOf(turn, ports, pos.loop);
    if (!loop) return;
    const move = complete(loop, pos, { by, now });
    await applyMove(turn, ports, loop, move, {
      kind: "close",
      before: pos,
      deliver: false,
      outcome: "",
      by,
    });
  } catch (err) {
    fault(turn, "close", err);
  }
}
