import assert from "node:assert/strict";
import { BUILTIN_LOOPS } from "../loops/mod.ts";
import { StateReader } from "./read.ts";
import { githubUrl, itemView, snapshot, type SnapshotInput } from "./snapshot.ts";
import { percentile } from "./telemetry.ts";
import { fixture, T0 } from "./_test_utils.ts";

async function inputOf(o: { panes?: Map<string, boolean> | null } = {}) {
  const f = await fixture();
  const reader = new StateReader({
    config: f.loaded.config,
    loops: BUILTIN_LOOPS,
    tmuxArgs: ["-L", `the-loop-ui-test-${crypto.randomUUID()}`],
    terminal: "read-only",
    startedAt: new Date(T0.getTime() - 600_000),
  });
  const input: SnapshotInput = await reader.read();
  // the panes as tmux would tell them (the real tmux has no such server: all dead)
  return { f, input: o.panes === undefined ? input : { ...input, panes: o.panes } };
}

const alive = new Map([["loop-github-octo-demo-1", true]]);

Deno.test("the snapshot puts what waits on a person first: question, gate, suspension, pause", async () => {
  const { f, input } = await inputOf({ panes: alive });
  const s = snapshot(input, { now: T0 });
  assert.equal(s.generatedAt, T0.toISOString());
  const [q] = s.attention.questions;
  assert.equal(q.ref, f.ref(1));
  assert.equal(q.question, "Keep the v1 endpoint, or <b>remove</b> it?"); // as written: the page escapes
  assert.equal(q.ageSeconds, 90);
  const [g] = s.attention.gates;
  assert.deepEqual([g.ref, g.loop, g.node, g.outcomes], [f.ref(3), "adhoc", "review", [
    "approve",
    "request-changes",
  ]]);
  assert.equal(g.since, T0.toISOString());
  const [sus] = s.attention.suspensions;
  assert.deepEqual([sus.ref, sus.point, sus.hook], [f.ref(4), "input_received", "policy"]);
  assert.match(sus.error, /policy: <script>/);
  const [pause] = s.attention.budgetPauses;
  assert.deepEqual([pause.ref, pause.budget, pause.used, pause.limit], [
    f.ref(5),
    "deliveriesPerHour",
    10,
    10,
  ]);
  assert.deepEqual(s.attention.deadSessions, []);
  assert.deepEqual(s.attention.failures.map((x) => x.event), ["dispatch.failed", "hooks.failed"]);
});

Deno.test("a row per work item: title, loop node and phase, session and liveness, usage", async () => {
  const { f, input } = await inputOf({ panes: alive });
  const s = snapshot(input, { now: T0 });
  assert.deepEqual(s.items.map((r) => r.ref).sort(), [1, 2, 3, 4, 5].map(f.ref));
  const one = s.items.find((r) => r.ref === f.ref(1))!;
  assert.equal(one.title, "Remove the <v1> endpoint");
  assert.deepEqual([one.loop, one.node, one.phase, one.loopStatus], [
    "adhoc",
    "work",
    "work",
    "active",
  ]);
  assert.equal(one.session?.status, "active");
  assert.equal(one.session?.liveness, "alive");
  assert.equal(one.session?.harness, "claude");
  assert.equal(one.session?.awaitingInput, true);
  assert.deepEqual(one.usage.find((u) => u.budget === "deliveriesPerHour"), {
    budget: "deliveriesPerHour",
    used: 0,
    limit: 10,
  });
  assert.equal(one.usage.find((u) => u.budget === "spawnsPerDay")?.used, 1); // its spawn
  const two = s.items.find((r) => r.ref === f.ref(2))!;
  assert.equal(two.session?.status, "paused");
  assert.equal(two.session?.liveness, "headless");
  assert.equal(two.url, "https://github.com/octo/demo/issues/2");
  assert.equal(s.items.find((r) => r.ref === f.ref(4))!.suspended, true);
});

Deno.test("a live tmux session without a live pane is a dead session", async () => {
  const { f, input } = await inputOf({ panes: new Map() });
  const s = snapshot(input, { now: T0 });
  assert.deepEqual(s.attention.deadSessions.map((d) => d.ref), [f.ref(1)]);
  assert.equal(s.items.find((r) => r.ref === f.ref(1))!.session?.liveness, "dead");
});

Deno.test("the real reader asks the daemon's tmux server: none running is every pane dead", async () => {
  const { f, input } = await inputOf();
  if (input.panes === null) return; // no tmux on this machine: liveness is unknown, said as such
  assert.equal(input.panes.get("loop-github-octo-demo-1"), undefined);
  assert.deepEqual(snapshot(input, { now: T0 }).attention.deadSessions.map((d) => d.ref), [
    f.ref(1),
  ]);
});

Deno.test("hook telemetry: calls, p50/p99, failures, refusals and the circuit, per point and hook", async () => {
  const { input } = await inputOf({ panes: alive });
  const s = snapshot(input, { now: T0 });
  const policy = s.hooks.find((h) => h.hook === "policy" && h.point === "input_received")!;
  assert.deepEqual(
    [policy.calls, policy.p50Ms, policy.p99Ms, policy.failures, policy.circuit],
    [5, 30, 500, 1, "closed"],
  );
  const gate = s.hooks.find((h) => h.hook === "gate")!;
  assert.deepEqual([gate.point, gate.calls, gate.refusals], ["session_spawn", 0, 1]);
  assert.equal(percentile([], 0.5), null);
  assert.equal(percentile([7], 0.99), 7);
});

Deno.test("the health strip: each figure with its time, stale when old or its daemon is down", async () => {
  const { input } = await inputOf({ panes: alive });
  const s = snapshot(input, { now: T0 });
  const h = s.health;
  assert.equal(h.poller.lastCycleAt, new Date(T0.getTime() - 30_000).toISOString());
  assert.equal(h.poller.lagSeconds, 0);
  assert.equal(h.poller.running, false); // no poller holds the lock
  assert.equal(h.poller.stale, true);
  assert.equal(h.rateLimit.remaining, 4321);
  const seen = Date.parse(h.rateLimit.at!);
  const rateAt = (ms: number) =>
    snapshot(input, { now: new Date(seen + ms) }).health.rateLimit.stale;
  assert.deepEqual([rateAt(60_000), rateAt(181_000)], [false, true]); // 2 intervals + 60 s
  assert.ok(h.webhook.lastDeliveryAt);
  assert.equal(h.webhook.stale, true); // the receiver does not run
  assert.deepEqual([h.queue.held, h.queue.inFlight], [0, 0]);
  assert.equal(h.uptime.seconds, 600);
  assert.equal(h.uptime.stale, false);
  // a poller that runs and cycled 30 s ago is fresh; 10 minutes later it is late and stale
  const up = { ...input, poll: { ...input.poll, running: true } };
  assert.equal(snapshot(up, { now: T0 }).health.poller.stale, false);
  const later = snapshot(up, { now: new Date(T0.getTime() + 600_000) }).health.poller;
  assert.deepEqual([later.stale, later.lagSeconds], [true, 570]);
});

Deno.test("an item's view: its trail, hook decisions with latency, the loop's moves, the terminal", async () => {
  const { f, input } = await inputOf({ panes: alive });
  const v = itemView(input, f.ref(1), { now: T0 })!;
  assert.equal(v.item.ref, f.ref(1));
  assert.equal(v.question?.summary, "API cleanup");
  assert.equal(v.gate, null);
  assert.ok(v.trail.some((e) => e.event === "session.registered"));
  assert.ok(v.trail.every((e, i, all) => i === 0 || all[i - 1].offset < e.offset));
  assert.deepEqual(v.hooks.map((h) => h.durationMs), [10, 20, 30, 40, 500]);
  assert.deepEqual(v.history.map((m) => [m.kind, m.to]), [["enter", "work"]]);
  assert.deepEqual(v.terminal, {
    mode: "read-only",
    available: true,
    path: "/api/v1/items/github%3Aocto%2Fdemo%231/terminal",
  });
  const three = itemView(input, f.ref(3), { now: T0 })!;
  assert.equal(three.gate?.node, "review");
  assert.equal(three.terminal.available, false);
  assert.equal(itemView(input, "github:octo/demo#99", { now: T0 }), undefined);
});

Deno.test("the snapshot is a pure function of its input and clock", async () => {
  const { input } = await inputOf({ panes: alive });
  assert.deepEqual(snapshot(input, { now: T0 }), snapshot(input, { now: T0 }));
  assert.equal(githubUrl("github:ghe.example.com/a/b#3"), "https://ghe.example.com/a/b/issues/3");
});
