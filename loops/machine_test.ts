import assert from "node:assert/strict";
import { BUILTIN_LOOPS } from "./builtin.ts";
import {
  advance,
  checkClaim,
  closedSince,
  complete,
  enter,
  resume,
  soleTerminal,
} from "./machine.ts";
import type { LoopDef, Position } from "./types.ts";

const REF = "github:octo/app#7";
const T0 = new Date("2026-01-02T03:04:05.000Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const adhoc = BUILTIN_LOOPS.get("adhoc")!;
const pdlc = BUILTIN_LOOPS.get("pdlc")!;

/** Walks `outcomes` from the start, agent claims and gate verdicts by their node's actor. */
function walk(loop: LoopDef, outcomes: string[]): Position {
  let pos = enter(loop, { ref: REF, now: T0 }).position;
  outcomes.forEach((outcome, i) => {
    const human = loop.nodes[pos.node].actor === "human";
    pos = advance(loop, pos, {
      outcome,
      kind: human ? "gate" : "agent",
      by: human ? "alice" : "agent",
      now: at(i + 1),
    }).position;
  });
  return pos;
}

Deno.test("enter: the start node, attempts 1, an enter transition, the phase change from nothing", () => {
  const move = enter(adhoc, { ref: REF, now: T0 });
  assert.deepEqual(move.position, {
    version: 1,
    workItem: REF,
    loop: "adhoc",
    node: "work",
    phase: "work",
    status: "active",
    attempts: { work: 1 },
    waitingSince: null,
    history: [{
      at: T0.toISOString(),
      kind: "enter",
      from: "",
      to: "work",
      outcome: "",
      by: "the-loop",
    }],
    updatedAt: T0.toISOString(),
  });
  assert.deepEqual(move.change, {
    loop: "adhoc",
    fromNode: "",
    toNode: "work",
    fromPhase: "",
    toPhase: "work",
    outcome: "",
    actor: "agent",
    terminal: false,
  });
  assert.equal(move.entered.id, "work");
  assert.equal(move.escalated, false);
});

Deno.test("enter is pure: the same inputs give the same move", () => {
  assert.deepEqual(enter(pdlc, { ref: REF, now: T0 }), enter(pdlc, { ref: REF, now: T0 }));
});

Deno.test("a satisfied node advances: the outcome's edge, attempts, history, a phase change", () => {
  const start = enter(adhoc, { ref: REF, now: T0 }).position;
  const before = structuredClone(start);
  const move = advance(adhoc, start, { outcome: "done", kind: "agent", by: "agent", now: at(1) });
  assert.deepEqual(start, before, "the given position is not changed");
  assert.equal(move.position.node, "review");
  assert.equal(move.position.phase, "review");
  assert.equal(move.position.status, "active");
  assert.equal(move.position.waitingSince, at(1).toISOString(), "a human node starts a wait");
  assert.deepEqual(move.position.attempts, { work: 1, review: 1 });
  assert.deepEqual(move.position.history.at(-1), {
    at: at(1).toISOString(),
    kind: "agent",
    from: "work",
    to: "review",
    outcome: "done",
    by: "agent",
  });
  assert.deepEqual(move.change, {
    loop: "adhoc",
    fromNode: "work",
    toNode: "review",
    fromPhase: "work",
    toPhase: "review",
    outcome: "done",
    actor: "human",
    terminal: false,
  });
  assert.equal(move.entered.id, "review");
});

Deno.test("cycles are fine: review → work → review, the wait cleared on leaving the gate", () => {
  const back = walk(adhoc, ["done", "request-changes"]);
  assert.equal(back.node, "work");
  assert.equal(back.waitingSince, null);
  assert.deepEqual(back.attempts, { work: 2, review: 1 });
  const again = walk(adhoc, ["done", "request-changes", "done"]);
  assert.equal(again.node, "review");
  assert.deepEqual(again.attempts, { work: 2, review: 2 });
  assert.deepEqual(again.history.map((t) => `${t.kind}:${t.from}>${t.to}`), [
    "enter:>work",
    "agent:work>review",
    "gate:review>work",
    "agent:work>review",
  ]);
});

Deno.test("a terminal node completes the loop, with a terminal phase change", () => {
  const pos = walk(adhoc, ["done"]);
  const move = advance(adhoc, pos, { outcome: "approve", kind: "gate", by: "alice", now: at(9) });
  assert.equal(move.position.status, "completed");
  assert.equal(move.position.node, "done");
  assert.equal(move.position.waitingSince, null);
  assert.equal(move.change?.terminal, true);
  assert.equal(move.change?.actor, "");
  assert.equal(move.change?.outcome, "approve");
});

Deno.test("pdlc walks from requirements to done, every move a phase change", () => {
  let pos = enter(pdlc, { ref: REF, now: T0 }).position;
  const phases = [pos.phase];
  for (const outcome of ["done", "approve", "done", "approve", "done", "approve"]) {
    const human = pdlc.nodes[pos.node].actor === "human";
    const move = advance(pdlc, pos, { outcome, kind: human ? "gate" : "agent", by: "x", now: T0 });
    assert.ok(move.change, `a phase change into ${move.position.node}`);
    pos = move.position;
    phases.push(pos.phase);
  }
  assert.deepEqual(phases, [
    "requirements",
    "requirements-review",
    "design",
    "design-review",
    "implementation",
    "implementation-review",
    "done",
  ]);
  assert.equal(pos.status, "completed");
});

Deno.test("a move within one phase is no phase change", () => {
  const loop: LoopDef = {
    name: "same",
    start: "a",
    builtin: false,
    nodes: {
      a: {
        id: "a",
        phase: "p",
        actor: "agent",
        next: { go: "b" },
        prompt: "",
        terminal: false,
        maxAttempts: 3,
      },
      b: {
        id: "b",
        phase: "p",
        actor: "agent",
        next: { go: "c" },
        prompt: "",
        terminal: false,
        maxAttempts: 3,
      },
      c: { id: "c", phase: "p", next: {}, prompt: "", terminal: true, maxAttempts: 3 },
    },
  };
  const a = enter(loop, { ref: REF, now: T0 }).position;
  const b = advance(loop, a, { outcome: "go", kind: "agent", by: "agent", now: T0 });
  assert.equal(b.change, undefined);
  const c = advance(loop, b.position, { outcome: "go", kind: "agent", by: "agent", now: T0 });
  assert.equal(c.change?.terminal, true, "a terminal node is reported even in the same phase");
});

Deno.test("entering an agent node more than maxAttempts times escalates", () => {
  // work is entered at the start (1), then after each request-changes (2, 3, 4 > 3)
  const third = walk(adhoc, ["done", "request-changes", "done", "request-changes", "done"]);
  assert.equal(third.attempts.work, 3);
  assert.equal(third.status, "active");
  const move = advance(adhoc, third, {
    outcome: "request-changes",
    kind: "gate",
    by: "alice",
    now: at(20),
  });
  assert.equal(move.escalated, true);
  assert.equal(move.position.status, "escalated");
  assert.equal(move.position.node, "work");
  assert.equal(move.position.attempts.work, 4);
  assert.equal(move.position.waitingSince, null);
  assert.deepEqual(move.position.history.slice(-2).map((t) => [t.kind, t.from, t.to, t.by]), [
    ["gate", "review", "work", "alice"],
    ["escalate", "work", "work", "the-loop"],
  ]);
});

Deno.test("a human node is never escalated, however often it is entered", () => {
  const loop: LoopDef = {
    ...adhoc,
    nodes: { ...adhoc.nodes, review: { ...adhoc.nodes.review, maxAttempts: 1 } },
  };
  const pos = walk(loop, ["done", "request-changes", "done"]);
  assert.equal(pos.attempts.review, 2);
  assert.equal(pos.status, "active");
});

Deno.test("resume: an escalated item is active again at its node, attempts starting over", () => {
  const parked = walk(adhoc, [
    "done",
    "request-changes",
    "done",
    "request-changes",
    "done",
    "request-changes",
  ]);
  assert.equal(parked.status, "escalated");
  const move = resume(adhoc, parked, { by: "alice", now: at(30) });
  assert.equal(move.position.status, "active");
  assert.equal(move.position.attempts.work, 1);
  assert.equal(move.change, undefined, "no phase change: the item stays where it was");
  assert.deepEqual(move.position.history.at(-1), {
    at: at(30).toISOString(),
    kind: "resume",
    from: "work",
    to: "work",
    outcome: "",
    by: "alice",
  });
  assert.throws(() => resume(adhoc, move.position, { by: "alice", now: at(31) }), /not escalated/);
});

Deno.test("complete: the loop completes wherever it stood, moving to its one terminal node", () => {
  const gate = walk(adhoc, ["done"]);
  const move = complete(adhoc, gate, { by: "bob", now: at(40) });
  assert.equal(move.position.status, "completed");
  assert.deepEqual([move.position.node, move.position.phase], ["done", "done"]);
  assert.equal(move.position.waitingSince, null);
  // the phase change says where it went: the label published is the one the facts name
  assert.deepEqual(move.change, {
    loop: "adhoc",
    fromNode: "review",
    toNode: "done",
    fromPhase: "review",
    toPhase: "done",
    outcome: "",
    actor: "",
    terminal: true,
  });
  assert.deepEqual(move.position.history.at(-1), {
    at: at(40).toISOString(),
    kind: "close",
    from: "review",
    to: "done",
    outcome: "",
    by: "bob",
  });
  assert.ok(closedSince(move.position));
  // closed again: nothing more
  assert.equal(complete(adhoc, move.position, { by: "bob", now: at(41) }).position, move.position);
});

Deno.test("complete: with several terminal nodes the item stays where it stood, phase unchanged", () => {
  const two: LoopDef = {
    ...adhoc,
    name: "two",
    nodes: {
      ...adhoc.nodes,
      dropped: { ...adhoc.nodes.done, id: "dropped", phase: "dropped" },
    },
  };
  assert.equal(soleTerminal(two), undefined);
  assert.equal(soleTerminal(adhoc)?.id, "done");
  const pos = enter(two, { ref: REF, now: T0 }).position;
  const move = complete(two, pos, { by: "bob", now: at(1) });
  assert.deepEqual([move.position.node, move.position.phase], ["work", "work"]);
  assert.deepEqual([move.change?.toNode, move.change?.toPhase, move.change?.terminal], [
    "work",
    "work",
    true,
  ]);
});

Deno.test("complete: a walk that reached its terminal node has only the close recorded, no phase change", () => {
  const done = walk(adhoc, ["done", "approve"]);
  assert.deepEqual([done.node, done.status, closedSince(done)], ["done", "completed", false]);
  const move = complete(adhoc, done, { by: "bob", now: at(50) });
  assert.equal(move.change, undefined);
  assert.deepEqual([move.position.node, move.position.history.at(-1)?.kind], ["done", "close"]);
  assert.ok(closedSince(move.position));
});

Deno.test("advance throws on an outcome the node does not have", () => {
  const pos = enter(adhoc, { ref: REF, now: T0 }).position;
  assert.throws(
    () => advance(adhoc, pos, { outcome: "approve", kind: "agent", by: "agent", now: T0 }),
    /no outcome "approve".*done/,
  );
  assert.throws(
    () => advance(adhoc, pos, { outcome: "toString", kind: "agent", by: "agent", now: T0 }),
    /no outcome "toString"/,
  );
});

Deno.test("checkClaim: a valid claim at the current agent node is ok", () => {
  const pos = enter(adhoc, { ref: REF, now: T0 }).position;
  assert.deepEqual(checkClaim(adhoc, pos, { outcome: "done" }), { ok: true });
  assert.deepEqual(checkClaim(adhoc, pos, { outcome: "done", node: "work" }), { ok: true });
});

Deno.test("checkClaim: an unknown outcome is refused listing the valid ones", () => {
  const pos = enter(pdlc, { ref: REF, now: T0 }).position;
  const c = checkClaim(pdlc, pos, { outcome: "pass" });
  assert.equal(c.ok, false);
  assert.ok(!c.ok && c.code === "unknown-outcome" && c.exit === 1);
  assert.match(c.message, /requirements has no outcome "pass"; valid outcomes: done/);
});

Deno.test("checkClaim: a claim for a node ahead is refused naming the current one", () => {
  const pos = enter(pdlc, { ref: REF, now: T0 }).position;
  const c = checkClaim(pdlc, pos, { outcome: "done", node: "design" });
  assert.ok(!c.ok && c.code === "not-current" && c.exit === 1);
  assert.match(c.message, /the item is at requirements, not design/);
  const unknown = checkClaim(pdlc, pos, { outcome: "done", node: "nowhere" });
  assert.ok(!unknown.ok && unknown.code === "not-current");
  assert.match(unknown.message, /at requirements.*has no such node/);
});

Deno.test("checkClaim: a replayed claim for a node already left is a no-op, exit 0", () => {
  const pos = walk(pdlc, ["done", "approve"]); // at design
  const c = checkClaim(pdlc, pos, { outcome: "done", node: "requirements" });
  assert.deepEqual(c, {
    ok: false,
    code: "already-past",
    message: "already past requirements",
    exit: 0,
  });
  // even once the loop is completed
  const done = walk(adhoc, ["done", "approve"]);
  assert.equal(checkClaim(adhoc, done, { outcome: "done", node: "work" }).ok, false);
  assert.deepEqual(
    (checkClaim(adhoc, done, { outcome: "done", node: "work" }) as { code: string }).code,
    "already-past",
  );
});

Deno.test("checkClaim: the agent cannot resolve a human node, and is told who can", () => {
  const pos = walk(adhoc, ["done"]);
  const c = checkClaim(adhoc, pos, { outcome: "approve" });
  assert.ok(!c.ok && c.code === "human-node" && c.exit === 1);
  assert.match(
    c.message,
    /review waits for a person: comment `the-loop:approve` or `the-loop:request-changes`/,
  );
  const custom = checkClaim(adhoc, pos, { outcome: "approve", keywords: { approve: "LGTM!" } });
  assert.match((custom as { message: string }).message, /`LGTM!` or `the-loop:request-changes`/);
});

Deno.test("checkClaim: no position, a completed or an escalated loop is refused", () => {
  const none = checkClaim(adhoc, undefined, { outcome: "done" });
  assert.ok(!none.ok && none.code === "not-started" && none.exit === 1);
  assert.match(none.message, /not entered a loop yet/);
  const done = walk(adhoc, ["done", "approve"]);
  const c = checkClaim(adhoc, done, { outcome: "done" });
  assert.ok(!c.ok && c.code === "completed" && c.exit === 1);
  const parked = walk(adhoc, [
    "done",
    "request-changes",
    "done",
    "request-changes",
    "done",
    "request-changes",
  ]);
  const e = checkClaim(adhoc, parked, { outcome: "done" });
  assert.ok(!e.ok && e.code === "escalated" && e.exit === 1);
  assert.match(e.message, /escalated at work/);
});

Deno.test("what a park held back goes with the next move or the close; a resume keeps it to tell", () => {
  let pos = walk(adhoc, ["done"]);
  pos = { ...pos, held: "@alice said so" };
  assert.equal(
    resume(adhoc, { ...pos, status: "escalated" }, { by: "a", now: at(9) }).position.held,
    "@alice said so",
  );
  assert.equal(
    advance(adhoc, pos, { outcome: "approve", kind: "gate", by: "alice", now: at(9) }).position
      .held,
    undefined,
  );
  assert.equal(complete(adhoc, pos, { by: "bob", now: at(9) }).position.held, undefined);
});
