import assert from "node:assert/strict";
import { closeEvent, comment, itemEvent, type Setup, setup, until } from "./_test_utils.ts";
import type { VerbResult } from "./types.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { BUILTIN_LOOPS, type LoopDef } from "../loops/mod.ts";

const START = "the-loop:start-execution";
const REF = "github:octo/repo#1";

/** The agent's `the-loop advance` for #1. */
function advance(t: Setup, outcome: string, node?: string): Promise<VerbResult> {
  return t.dispatcher.act({ verb: "advance", ref: REF, outcome, ...(node ? { node } : {}) }, {
    via: "poll",
  });
}

/** Waits until no delivery into a session is under way or waiting (an assignment is not waited for). */
async function quiet(t: Setup): Promise<void> {
  await until(() => t.dispatcher.load.running + t.dispatcher.load.waiting === 0, "quiet");
}

/** The prompts delivered into #1's session (after its spawn), in order. */
function delivered(t: Setup): string[] {
  return t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
}

/** The phase_changed and waiting_for_input contexts the hooks were asked, in order. */
function loopFacts(t: Setup): Record<string, unknown>[] {
  return t.hooks.seen.filter((s) => s.point === "phase_changed" || s.point === "waiting_for_input")
    .map((s) => {
      const { work_item: _w, ...rest } = s.ctx;
      return { point: s.point, ...rest };
    });
}

Deno.test("a spawn enters adhoc at work: the position first, phase_changed, the label; the assignment in the spawn prompt", async () => {
  await using t = await setup({ loops: true });
  const out = await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(out, { status: "delivered", detail: "spawned" });
  const spawn = t.runner.calls[0];
  assert.match(spawn.prompt!, /walks the loop `adhoc` and stands at node `work` \(phase `work`\)/);
  assert.match(spawn.prompt!, /^- `the-loop advance --outcome done`$/m);
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.loop, pos.node, pos.status], ["adhoc", "work", "active"]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:work"]);
  const enteredAt = t.trail.indexOf("put work");
  assert.ok(enteredAt >= 0);
  // the second write notes the label published (`published`), after it
  assert.deepEqual(t.trail.slice(enteredAt), [
    "put work",
    "hook:phase_changed",
    "+loop:work",
    "put work",
  ]);
  const [entered] = t.events.ofType("loop.entered");
  assert.deepEqual([entered.loop, entered.node, entered.notified], ["adhoc", "work", true]);
});

Deno.test("adhoc walked to done: claim, gate comment, request-changes back to work, approve", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  const claimed = await advance(t, "done");
  assert.equal(claimed.exit, 0, claimed.message);
  assert.deepEqual(claimed.data, { node: "review", phase: "review", status: "active" });
  const request = t.github.comments.at(-1)!.body;
  assert.match(
    request,
    /waiting for a review at review: comment `the-loop:approve` or `the-loop:request-changes`/,
  );
  assert.deepEqual(t.github.labelsOf(1), ["loop:review"]);
  // a comment without a verdict is delivered, the gate waits
  assert.equal((await t.dispatcher.dispatch(comment(1, "looks nice so far"))).status, "delivered");
  assert.equal(t.positions.map.get(REF)!.node, "review");
  // request-changes: consumed, back to work, the assignment delivered with the verdict first
  const verdict = await t.dispatcher.dispatch(comment(1, "the-loop:request-changes the docs"));
  assert.deepEqual(verdict, { status: "settled", reason: "verdict" });
  assert.equal(t.positions.map.get(REF)!.node, "work");
  await until(() => delivered(t).some((p) => p.includes("stands at node `work`")), "assignment");
  const assignment = delivered(t).find((p) => p.includes("stands at node `work`"))!;
  assert.match(
    assignment,
    /^@alice resolved the review at `review` with the verdict `request-changes`/,
  );
  assert.match(assignment, /UNTRUSTED CONTENT[\s\S]*the-loop:request-changes the docs/);
  assert.match(assignment, /^- `the-loop advance --outcome done`$/m);
  assert.ok(
    !delivered(t).some((p) =>
      p.includes("Event: issue_comment") && p.includes("request-changes the docs")
    ),
  );
  // done again, approve: completed
  assert.equal((await advance(t, "done")).exit, 0);
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the-loop:approve")), {
    status: "settled",
    reason: "verdict",
  });
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status], ["done", "completed"]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
  assert.equal(t.events.ofType("loop.completed").length, 1);
});

/** The loop points' facts in a line each: `phase_changed from>to (fromPhase>toPhase) outcome actor terminal`. */
function factLines(t: Setup): string[] {
  return loopFacts(t).map((f) =>
    f.point === "phase_changed"
      ? `phase_changed ${f.loop} ${f.from_node}>${f.to_node} (${f.from_phase}>${f.to_phase}) ` +
        `outcome=${f.outcome} actor=${f.actor} terminal=${f.terminal}`
      : `waiting_for_input ${f.kind} node=${f.node} loop=${f.loop} actor=${f.actor}`
  );
}

Deno.test("pdlc walked start to done by claims and approvals: the seed's facts in the seed's order", async () => {
  await using t = await setup({ loops: true, routing: (r) => Object.assign(r, { loop: "pdlc" }) });
  await t.dispatcher.dispatch(comment(1, START));
  for (const stage of ["requirements", "design", "implementation"]) {
    assert.equal(t.positions.map.get(REF)!.node, stage);
    const r = await advance(t, "done");
    assert.equal(r.exit, 0, r.message);
    assert.match(r.message, new RegExp(`now at ${stage}-review`));
    assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the-loop:approve")), {
      status: "settled",
      reason: "verdict",
    });
  }
  assert.deepEqual(factLines(t), [
    "phase_changed pdlc >requirements (>requirements) outcome= actor=agent terminal=false",
    "phase_changed pdlc requirements>requirements-review (requirements>requirements-review) outcome=done actor=human terminal=false",
    "waiting_for_input gate node=requirements-review loop=pdlc actor=",
    "phase_changed pdlc requirements-review>design (requirements-review>design) outcome=approve actor=agent terminal=false",
    "phase_changed pdlc design>design-review (design>design-review) outcome=done actor=human terminal=false",
    "waiting_for_input gate node=design-review loop=pdlc actor=",
    "phase_changed pdlc design-review>implementation (design-review>implementation) outcome=approve actor=agent terminal=false",
    "phase_changed pdlc implementation>implementation-review (implementation>implementation-review) outcome=done actor=human terminal=false",
    "waiting_for_input gate node=implementation-review loop=pdlc actor=",
    "phase_changed pdlc implementation-review>done (implementation-review>done) outcome=approve actor= terminal=true",
  ]);
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status], ["done", "completed"]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
  // one request comment per gate (after the announcement)
  const requests = t.github.comments.filter((c) => c.body.includes("waiting for a review at"));
  assert.deepEqual(
    requests.map((c) => /at ([\w-]+):/.exec(c.body)![1]),
    ["requirements-review", "design-review", "implementation-review"],
  );
  // the lifecycle points' loop fact
  const start = t.hooks.seen.find((s) => s.point === "work_item_start")!;
  assert.equal(start.ctx.loop, "pdlc");
  assert.equal(t.hooks.seen.find((s) => s.point === "session_spawn")!.ctx.loop, "pdlc");
  const inputs = t.hooks.seen.filter((s) => s.point === "input_received");
  assert.ok(inputs.length > 0 && inputs.every((s) => s.ctx.loop === "pdlc"));
  // each verdict is an input_received kind command with the outcome as its command
  const verdicts = inputs.filter((s) => s.ctx.command === "approve");
  assert.equal(verdicts.length, 3);
  assert.ok(verdicts.every((s) => s.ctx.kind === "command" && s.ctx.actor === "alice"));
});

Deno.test("at a human node: the pointer is written before the label, the request comment and waiting_for_input", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  const from = t.trail.length;
  assert.equal((await advance(t, "done")).exit, 0);
  assert.deepEqual(t.trail.slice(from), [
    "put review",
    "hook:phase_changed",
    "+loop:review",
    "-loop:work",
    "put review",
    "comment",
    "hook:waiting_for_input",
  ]);
  const [waiting] = t.events.ofType("loop.gate_waiting");
  assert.equal(waiting.node, "review");
  assert.equal(typeof waiting.comment_url, "string");
});

Deno.test("notify false stops that one label change; the position still moves and the event says so", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  t.hooks.answers.phase_changed = (ctx) => {
    if (ctx.to_node === "review") ctx.notify = false;
  };
  assert.equal((await advance(t, "done")).exit, 0);
  assert.equal(t.positions.map.get(REF)!.node, "review");
  assert.deepEqual(t.github.labelsOf(1), ["loop:work"]);
  const [advanced] = t.events.ofType("loop.advanced");
  assert.deepEqual([advanced.from, advanced.to, advanced.notified], ["work", "review", false]);
  assert.equal(t.positions.map.get(REF)!.published, "work", "the label the item still carries");
  // the gate is opened all the same, and the next change publishes again: the item carries
  // exactly the new label, the one the silenced move left removed
  assert.ok(t.github.comments.some((c) => c.body.includes("waiting for a review at review")));
  await t.dispatcher.dispatch(comment(1, "the-loop:approve"));
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
});

Deno.test("a verdict from nobody authorized changes nothing, and is never delivered", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  await quiet(t);
  const calls = t.runner.calls.length;
  const out = await t.dispatcher.dispatch(comment(1, "the-loop:approve", { actor: null }));
  assert.deepEqual(out, { status: "settled", reason: "unauthorized-actor" });
  assert.equal(t.positions.map.get(REF)!.node, "review");
  assert.equal(t.runner.calls.length, calls);
  const [ignored] = t.events.ofType("loop.verdict_ignored");
  assert.equal(ignored.reason, "unauthorized");
  assert.equal(t.events.ofType("loop.advanced").length, 1); // the claim's only
});

Deno.test("an indecisive comment at a gate is delivered and the gate keeps waiting", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  for (
    const text of [
      "not approved yet, sorry",
      "I'd say `the-loop:approve` later",
      "> the-loop:approve",
    ]
  ) {
    const out = await t.dispatcher.dispatch(comment(1, text));
    assert.equal(out.status, "delivered", text);
  }
  assert.equal(t.positions.map.get(REF)!.node, "review");
  assert.equal(t.events.ofType("loop.verdict_ignored").length, 0);
});

Deno.test("two different verdicts in one comment are ambiguous: settled, the gate waits", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  const out = await t.dispatcher.dispatch(
    comment(1, "the-loop:approve or the-loop:request-changes?"),
  );
  assert.deepEqual(out, { status: "settled", reason: "ambiguous" });
  assert.equal(t.positions.map.get(REF)!.node, "review");
  assert.equal(t.events.ofType("loop.verdict_ignored")[0].reason, "ambiguous");
});

Deno.test("a verdict keyword where no gate waits is settled, not delivered, and moves nothing", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await quiet(t);
  const calls = t.runner.calls.length;
  const out = await t.dispatcher.dispatch(comment(1, "the-loop:approve"));
  assert.deepEqual(out, { status: "settled", reason: "verdict-ignored" });
  assert.equal(t.runner.calls.length, calls);
  assert.equal(t.positions.map.get(REF)!.node, "work");
  assert.equal(t.events.ofType("loop.verdict_ignored")[0].reason, "not-at-gate");
});

Deno.test("an input_received refusal of a verdict moves nothing", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  t.hooks.answers.input_received = (ctx) => {
    if (ctx.command === "approve") [ctx.proceed, ctx.reason] = [false, "not on Fridays"];
  };
  const out = await t.dispatcher.dispatch(comment(1, "the-loop:approve"));
  assert.deepEqual(out, { status: "settled", reason: "input-refused" });
  assert.equal(t.positions.map.get(REF)!.node, "review");
  assert.equal(t.events.ofType("loop.verdict_ignored")[0].detail, "not on Fridays");
});

Deno.test("a redelivered or repeated spawn never rewinds an item already in its loop", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  assert.equal(t.positions.map.get(REF)!.node, "review");
  // the session goes away (closed by hand) and a new one spawns: the position stays
  await t.sessions.close(REF);
  const puts = t.positions.puts;
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 2);
  assert.equal(t.positions.puts, puts);
  assert.equal(t.positions.map.get(REF)!.node, "review");
  assert.equal(t.events.ofType("loop.entered").length, 1);
  // the new session's prompt tells where it stands: a person reviews
  const respawned = t.runner.calls.filter((c) => c.op === "spawn")[1].prompt!;
  assert.match(respawned, /stands at node `review`[\s\S]*A person will review/);
});

Deno.test("claims: a node ahead is refused naming the current; a replayed one is a no-op; a bad outcome lists the valid", async () => {
  await using t = await setup({ loops: true, routing: (r) => Object.assign(r, { loop: "pdlc" }) });
  await t.dispatcher.dispatch(comment(1, START));
  const ahead = await advance(t, "done", "design");
  assert.equal(ahead.exit, 1);
  assert.match(ahead.message, /at requirements, not design/);
  const bad = await advance(t, "finished");
  assert.equal(bad.exit, 1);
  assert.match(bad.message, /valid outcomes: done/);
  assert.equal((await advance(t, "done", "requirements")).exit, 0);
  const puts = t.positions.puts;
  const replay = await advance(t, "done", "requirements");
  assert.equal(replay.exit, 0);
  assert.match(replay.message, /already past requirements/);
  assert.equal(t.positions.puts, puts);
  // the agent cannot resolve a gate
  const gate = await advance(t, "approve");
  assert.equal(gate.exit, 1);
  assert.match(gate.message, /waits for a person: comment `the-loop:approve`/);
  assert.deepEqual(
    t.events.ofType("loop.claim_refused").map((e) => e.code),
    ["not-current", "unknown-outcome", "already-past", "human-node"],
  );
});

Deno.test("a claim before the item entered any loop is refused (exit 1)", async () => {
  await using t = await setup({ loops: true });
  const r = await advance(t, "done");
  assert.equal(r.exit, 1);
  assert.match(r.message, /has not entered a loop/);
});

Deno.test("entering the same agent node more than maxAttempts times parks the item: paused, one comment; a resume starts over", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  // work (1) → review → work (2) → review → work (3) → review → work (4): parked
  for (let i = 0; i < 3; i++) {
    assert.equal((await advance(t, "done")).exit, 0);
    await t.dispatcher.dispatch(comment(1, "the-loop:request-changes"));
  }
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status], ["work", "escalated"]);
  assert.equal((await t.sessions.live(REF))?.status, "paused");
  const [escalated] = t.events.ofType("loop.escalated");
  assert.deepEqual([escalated.node, escalated.attempts, escalated.max_attempts], ["work", 4, 3]);
  const parked = t.github.comments.filter((c) => c.body.includes("parked"));
  assert.equal(parked.length, 1);
  assert.match(parked[0].body, /`the-loop:resume-execution`/);
  assert.match(parked[0].body, /the-loop sessions resume github:octo\/repo#1/);
  const refused = await advance(t, "done");
  assert.equal(refused.exit, 1);
  assert.match(refused.message, /escalated/);
  // a person resumes: active again, the node's attempts start over, the assignment delivered
  const before = delivered(t).length;
  const out = await t.dispatcher.dispatch(comment(1, "the-loop:resume-execution"));
  assert.deepEqual(out, { status: "settled", reason: "command" });
  const resumed = t.positions.map.get(REF)!;
  assert.deepEqual([resumed.status, resumed.attempts.work], ["active", 1]);
  assert.equal(t.events.ofType("loop.resumed").length, 1);
  await until(() => delivered(t).length > before, "the assignment again");
  assert.match(delivered(t).at(-1)!, /stands at node `work`/);
  assert.equal((await advance(t, "done")).exit, 0);
});

Deno.test("closing the item completes its loop wherever it stood", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  const comments = t.github.comments.length;
  assert.equal((await t.dispatcher.dispatch(closeEvent(1))).status, "delivered");
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status, pos.history.at(-1)!.kind, pos.history.at(-1)!.from], [
    "done",
    "completed",
    "close",
    "review",
  ]);
  // the facts name the phase the label says
  const last = loopFacts(t).at(-1)!;
  assert.deepEqual(
    [last.point, last.from_node, last.to_node, last.to_phase, last.terminal],
    ["phase_changed", "review", "done", "done", true],
  );
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
  const [completed] = t.events.ofType("loop.completed");
  assert.deepEqual([completed.node, completed.phase, completed.closed], ["done", "done", true]);
  // no new request comment at the gate it stood at: only the closure comment
  assert.equal(t.github.comments.length, comments + 1);
  assert.equal(t.hooks.seen.find((s) => s.point === "work_item_complete")!.ctx.loop, "adhoc");
});

Deno.test("sessions resume (the CLI's control action) of a parked item resumes its position too", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  for (let i = 0; i < 3; i++) {
    await advance(t, "done");
    await t.dispatcher.dispatch(comment(1, "the-loop:request-changes"));
  }
  assert.equal(t.positions.map.get(REF)!.status, "escalated");
  const item = parseWorkItem(REF)!;
  const result = await t.control.apply("resume", item, {
    source: "cli",
    actor: "operator",
    note: "issued from the-loop CLI by operator",
  });
  assert.equal(result.status, "applied");
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.status, pos.attempts.work, pos.history.at(-1)!.by], [
    "active",
    1,
    "operator",
  ]);
  const [resumed] = t.events.ofType("loop.resumed");
  assert.deepEqual([resumed.origin, resumed.node], ["cli", "work"]);
  // the CLI then tells the daemon (`resumed`): the agent hears the held verdict and its node
  const before = delivered(t).length;
  const told = await t.dispatcher.act({ verb: "resumed", ref: REF }, { via: "poll" });
  assert.deepEqual([told.exit, told.message], [
    0,
    "the agent of github:octo/repo#1 was given its assignment again",
  ]);
  await until(() => delivered(t).length > before, "the assignment again");
  assert.match(delivered(t).at(-1)!, /verdict `request-changes`[\s\S]*stands at node `work`/);
  // a resume of an item that is not parked leaves its position alone
  await t.control.apply("pause", item, { source: "cli", actor: "operator", note: "" });
  const puts = t.positions.puts;
  await t.control.apply("resume", item, { source: "cli", actor: "operator", note: "" });
  assert.equal(t.positions.puts, puts);
});

Deno.test("sessions start --loop (the control action's loop) is kept in the start's record only", async () => {
  await using t = await setup({ loops: true });
  const item = parseWorkItem(REF)!;
  const origin = { source: "cli" as const, actor: "operator", note: "" };
  await t.control.apply("start", item, origin, { loop: "pdlc" });
  assert.equal((await t.controlStore.get(REF))?.loop, "pdlc");
  await t.control.apply("pause", item, origin, { loop: "pdlc" });
  assert.equal((await t.controlStore.get(REF))?.loop, undefined);
});

Deno.test("the loop's own loop:<phase> label events are settled phase-label, never delivered", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await quiet(t);
  const calls = t.runner.calls.length;
  for (const action of ["labeled", "unlabeled"]) {
    const ev = { ...itemEvent(1, { action }), label: "loop:work" };
    assert.deepEqual(await t.dispatcher.dispatch(ev), { status: "settled", reason: "phase-label" });
  }
  assert.equal(t.runner.calls.length, calls);
  // the auto-execute label still reaches the session; another label is a quiet action
  assert.equal(
    (await t.dispatcher.dispatch(itemEvent(1, { action: "labeled" }))).status,
    "delivered",
  );
  const other = { ...itemEvent(1, { action: "labeled" }), label: "bug" };
  assert.deepEqual(await t.dispatcher.dispatch(other), {
    status: "settled",
    reason: "quiet-action",
  });
});

Deno.test("a loop starting at a human node: the spawn prompt says a person reviews; the request comment after phase_changed", async () => {
  const gate = (id: string, next: Record<string, string>) => ({
    id,
    phase: id,
    actor: "human" as const,
    next,
    prompt: "",
    terminal: false,
    maxAttempts: 3,
  });
  const triage: LoopDef = {
    name: "triage",
    start: "triage",
    builtin: false,
    nodes: {
      triage: gate("triage", { accept: "fix", reject: "closed" }),
      fix: { ...gate("fix", { done: "closed" }), actor: "agent", prompt: "Fix it." },
      closed: { ...gate("closed", {}), actor: undefined, terminal: true },
    },
  };
  await using t = await setup({
    loops: new Map([...BUILTIN_LOOPS, ["triage", triage]]),
    routing: (r) => Object.assign(r, { loop: "triage" }),
  });
  await t.dispatcher.dispatch(comment(1, START));
  assert.match(t.runner.calls[0].prompt!, /stands at node `triage`[\s\S]*A person will review/);
  assert.match(t.runner.calls[0].prompt!, /`the-loop:accept` or `the-loop:reject`/);
  const from = t.trail.indexOf("put triage");
  assert.deepEqual(t.trail.slice(from), [
    "put triage",
    "hook:phase_changed",
    "+loop:triage",
    "put triage",
    "comment",
    "hook:waiting_for_input",
  ]);
  assert.match(
    t.github.comments.at(-1)!.body,
    /waiting for a review at triage: comment `the-loop:accept` or `the-loop:reject`/,
  );
  await t.dispatcher.dispatch(comment(1, "the-loop:accept"));
  await until(() => delivered(t).some((p) => p.includes("Fix it.")), "the fix assignment");
  assert.match(
    delivered(t).find((p) => p.includes("Fix it."))!,
    /^- `the-loop advance --outcome done`$/m,
  );
});

Deno.test("a reopened item closed mid-walk begins a new walk with one loop: label", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  await t.dispatcher.dispatch(closeEvent(1));
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
  // reopened and started again: a new walk from the start, the finished walk's label gone
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
    status: "delivered",
    detail: "spawned",
  });
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status, pos.history.length], ["work", "active", 1]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:work"]);
});

Deno.test("a walk finished at its terminal node is not begun again by a later spawn; after a close it is", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  await t.dispatcher.dispatch(comment(1, "the-loop:approve"));
  assert.deepEqual(t.positions.map.get(REF)!.status, "completed");
  // the session ends and is started again, the item still open: the walk stays finished
  await t.dispatcher.dispatch(comment(1, "the-loop:stop-execution"));
  const spawns = () => t.runner.calls.filter((c) => c.op === "spawn");
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(spawns().length, 2);
  assert.match(spawns()[1].prompt!, /stands at node `done`.*The loop is done/s);
  const kept = t.positions.map.get(REF)!;
  assert.deepEqual([kept.node, kept.status], ["done", "completed"]);
  assert.equal(t.events.ofType("loop.entered").length, 1);
  assert.deepEqual(t.github.labelsOf(1), ["loop:done"]);
  // the item closes (the close is recorded, nothing told again) and is reopened: a new walk
  const facts = loopFacts(t).length;
  await t.dispatcher.dispatch(closeEvent(1));
  assert.equal(loopFacts(t).length, facts, "no second phase_changed at the close");
  assert.equal(t.positions.map.get(REF)!.history.at(-1)!.kind, "close");
  await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(t.positions.map.get(REF)!.node, "work");
  assert.equal(t.events.ofType("loop.entered").length, 2);
  assert.deepEqual(t.github.labelsOf(1), ["loop:work"]);
});

Deno.test("a verdict that parks the item is held, and told with the assignment at the resume", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  for (let i = 0; i < 3; i++) {
    await advance(t, "done");
    await t.dispatcher.dispatch(comment(1, `the-loop:request-changes — round ${i}, fix the tests`));
  }
  const parked = t.positions.map.get(REF)!;
  assert.equal(parked.status, "escalated");
  assert.match(parked.held!, /resolved the review at `review` with the verdict `request-changes`/);
  assert.match(parked.held!, /round 2, fix the tests/);
  const before = delivered(t).length;
  await t.dispatcher.dispatch(comment(1, "the-loop:resume-execution"));
  await until(() => delivered(t).length > before, "the assignment again");
  const told = delivered(t).at(-1)!;
  assert.match(
    told,
    /verdict `request-changes`[\s\S]*round 2, fix the tests[\s\S]*stands at node `work`/,
  );
  assert.equal(t.positions.map.get(REF)!.held, undefined, "told once, then cleared");
});

Deno.test("a close after the walk finished closes the session even when its node is no longer declared", async () => {
  await using t = await setup({ loops: true });
  await t.dispatcher.dispatch(comment(1, START));
  await advance(t, "done");
  await t.dispatcher.dispatch(comment(1, "the-loop:approve"));
  assert.equal(t.positions.map.get(REF)!.finished, true);
  // the config's loops changed since: adhoc's terminal node is called `finished` now
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  const { done, ...rest } = adhoc.nodes;
  const renamed: LoopDef = {
    ...adhoc,
    nodes: {
      ...rest,
      review: { ...rest.review, next: { ...rest.review.next, approve: "finished" } },
      finished: { ...done, id: "finished" },
    },
  };
  t.loops.set = new Map([...BUILTIN_LOOPS, ["adhoc", renamed]]);
  assert.equal((await t.dispatcher.dispatch(closeEvent(1))).status, "delivered");
  assert.ok(t.runner.calls.some((c) => c.op === "close"), "the harness was ended");
  assert.equal((await t.sessions.live(REF))?.status ?? "closed", "closed");
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.history.at(-1)!.kind, pos.finished], ["close", undefined]);
  assert.equal(t.events.ofType("loop.fault").length, 0);
});

Deno.test("a walk finished and closed before the open-finished mark was kept (an older position) begins anew", async () => {
  await using t = await setup({ loops: true });
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  // as the previous version left it: done at the terminal node, its close never recorded
  t.positions.map.set(REF, {
    version: 1,
    workItem: REF,
    loop: adhoc.name,
    node: "done",
    phase: "done",
    status: "completed",
    attempts: { work: 1, review: 1, done: 1 },
    waitingSince: null,
    history: [
      {
        at: "2026-11-01T00:00:00.000Z",
        kind: "enter",
        from: "",
        to: "work",
        outcome: "",
        by: "the-loop",
      },
      {
        at: "2026-11-01T00:01:00.000Z",
        kind: "agent",
        from: "work",
        to: "review",
        outcome: "done",
        by: "agent",
      },
      {
        at: "2026-11-01T00:02:00.000Z",
        kind: "gate",
        from: "review",
        to: "done",
        outcome: "approve",
        by: "alice",
      },
    ],
    updatedAt: "2026-11-01T00:02:00.000Z",
    published: "done",
  });
  await t.dispatcher.dispatch(comment(1, START));
  const pos = t.positions.map.get(REF)!;
  assert.deepEqual([pos.node, pos.status, pos.history.length], ["work", "active", 1]);
  assert.deepEqual(t.github.labelsOf(1), ["loop:work"]);
});
