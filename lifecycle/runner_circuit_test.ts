import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { HookFailure, HookTimeout } from "./executor.ts";
import { CIRCUIT_POLICY } from "./circuit.ts";
import { FileCircuitStore } from "./circuit_store.ts";
import { Runner, type RunnerEntry } from "./runner.ts";
import { entryOf, fakeExecutor, phaseCtx, startCtx } from "./_test_utils.ts";

const T0 = Date.UTC(2026, 0, 1);

function setup(entries: RunnerEntry[], opts: { store?: FileCircuitStore } = {}) {
  const sink = new MemorySink({ strict: true });
  const warnings: string[] = [];
  const clock = { now: T0 };
  const runner = new Runner({
    entries,
    sink,
    warn: (m) => warnings.push(m),
    now: () => clock.now,
    ...(opts.store ? { circuitStore: opts.store } : {}),
  });
  return { runner, sink, warnings, clock };
}

const timesOut = () => {
  throw new HookTimeout("no answer within 10000 ms");
};

Deno.test("circuit: a remote hook timing out 5 times opens it; a required hook then refuses fast, once told", async () => {
  const remote = fakeExecutor("compliance", timesOut, { kind: "remote" });
  const after = fakeExecutor("audit", () => ({ answer: null }));
  const { runner, sink, warnings, clock } = setup([
    { entry: entryOf("compliance", { kind: "remote", required: true }), executor: remote },
    { entry: entryOf("audit"), executor: after },
  ]);
  for (let i = 0; i < 5; i++) {
    clock.now += 1000;
    const ctx = await runner.run("work_item_start", startCtx());
    assert.equal(ctx.proceed, false, "a required hook's failure refuses");
  }
  assert.equal(remote.calls.length, 5);
  const [opened, ...more] = sink.ofType("hooks.circuit_opened");
  assert.deepEqual(more, [], "one event says the circuit opened");
  assert.deepEqual(
    { ...opened, ts: undefined, pid: undefined },
    {
      ts: undefined,
      pid: undefined,
      source: "test",
      event: "hooks.circuit_opened",
      level: "error",
      hook: "compliance",
      kind: "remote",
      point: "work_item_start",
      required: true,
      failures: 5,
      last_error: "no answer within 10000 ms",
      opened_at: new Date(T0 + 5000).toISOString(),
      retry_at: new Date(T0 + 5000 + CIRCUIT_POLICY.coolDownMs).toISOString(),
      cool_down_ms: CIRCUIT_POLICY.coolDownMs,
      reopened: false,
      work_item: "github:acme/app#42",
    },
  );
  assert.match(
    warnings.find((w) => w.includes("circuit is open"))!,
    /^hook "compliance": its circuit is open after 5 failures in a row \(last: no answer within 10000 ms\); its calls are skipped until .*; it is required, so the operations it decides are refused; 'the-loop hooks reset compliance' re-arms it sooner$/,
  );

  // open: not called, the operation refused at once; the chain goes on
  const before = sink.records.length;
  for (let i = 0; i < 10; i++) {
    clock.now += 1000;
    const ctx = await runner.run("work_item_start", startCtx());
    assert.equal(ctx.proceed, false);
    assert.match(
      ctx.reason,
      /^required hook "compliance" is unavailable: its circuit is open after 5 failures in a row, so its calls are skipped until 2026-01-01T00:00:35\.000Z$/,
    );
  }
  assert.equal(remote.calls.length, 5, "an open circuit makes no call");
  assert.equal(after.calls.length, 15, "the chain went on");
  const since = sink.records.slice(before);
  assert.deepEqual(since.filter((r) => r.event === "hooks.circuit_opened"), []);
  assert.deepEqual(since.filter((r) => r.event === "hooks.failed"), []);
  const ran = since.filter((r) => r.event === "hooks.ran" && r.hook === "compliance");
  assert.deepEqual(new Set(ran.map((r) => r.disposition)), new Set(["skipped"]));
  assert.equal(since.filter((r) => r.event === "hooks.refused").length, 10);
  assert.deepEqual(runner.circuits().map((c) => [c.hook, c.state, c.skipped]), [
    ["compliance", "open", 10],
    ["audit", "closed", 0],
  ]);
});

Deno.test("circuit: after the cool-down one probe goes through; it closes the circuit or opens it again for longer", async () => {
  let broken = true;
  const ex = fakeExecutor("policy", () => {
    if (broken) throw new HookFailure("Error: roster unreachable\n    at policy.ts:3:9");
    return { answer: null };
  });
  const { runner, sink, clock } = setup([{ entry: entryOf("policy"), executor: ex }]);
  for (let i = 0; i < 5; i++) await runner.run("phase_changed", phaseCtx());
  const opened = T0;
  assert.equal(sink.ofType("hooks.circuit_opened")[0].last_error, "Error: roster unreachable");

  clock.now = opened + CIRCUIT_POLICY.coolDownMs;
  // two runs at once: one probe, the other skipped
  await Promise.all([
    runner.run("phase_changed", phaseCtx()),
    runner.run("phase_changed", phaseCtx()),
  ]);
  assert.equal(ex.calls.length, 6);
  assert.equal(ex.calls[5].opts.probe, true, "the executor is told it is the probe");
  assert.equal(ex.calls[0].opts.probe, undefined);
  const [, reopened] = sink.ofType("hooks.circuit_opened");
  assert.deepEqual([reopened.reopened, reopened.cool_down_ms, reopened.failures], [
    true,
    2 * CIRCUIT_POLICY.coolDownMs,
    6,
  ]);
  assert.equal(reopened.opened_at, new Date(opened).toISOString());

  broken = false;
  clock.now += 2 * CIRCUIT_POLICY.coolDownMs - 1;
  await runner.run("phase_changed", phaseCtx());
  assert.equal(ex.calls.length, 6, "still cooling down");
  clock.now += 1;
  await runner.run("phase_changed", phaseCtx());
  assert.equal(ex.calls.length, 7);
  const [closed] = sink.ofType("hooks.circuit_closed");
  assert.deepEqual([closed.hook, closed.after, closed.point, closed.skipped], [
    "policy",
    "cool-down",
    "phase_changed",
    2,
  ]);
  await runner.run("phase_changed", phaseCtx());
  assert.equal(ex.calls.length, 8, "closed: calls go through");
  assert.deepEqual(runner.circuits()[0].state, "closed");
});

Deno.test("circuit: a required hook skipped at a point without proceed refuses nothing", async () => {
  const ex = fakeExecutor("notify", () => {
    throw new HookFailure("down");
  });
  const { runner, sink } = setup([{ entry: entryOf("notify", { required: true }), executor: ex }]);
  for (let i = 0; i < 6; i++) await runner.run("phase_changed", phaseCtx());
  assert.equal(ex.calls.length, 5);
  assert.deepEqual(sink.ofType("hooks.refused"), []);
  assert.equal(sink.ofType("hooks.ran").at(-1)?.disposition, "skipped");
});

Deno.test("circuit: the open circuit is written under the state root; removing it (hooks reset) lets a probe through", async () => {
  const root = await Deno.makeTempDir({ prefix: "circuit-store-" });
  try {
    const store = new FileCircuitStore(root);
    let broken = true;
    const ex = fakeExecutor("gate", () => {
      if (broken) throw new HookFailure("exited 1");
      return { answer: null };
    }, { kind: "command" });
    const { runner, sink, clock } = setup([{
      entry: entryOf("gate", { required: true }),
      executor: ex,
    }], { store });
    for (let i = 0; i < 5; i++) await runner.run("work_item_start", startCtx());
    const rec = await store.read("gate");
    assert.deepEqual(rec, {
      hook: "gate",
      state: "open",
      kind: "command",
      required: true,
      opened_at: new Date(T0).toISOString(),
      retry_at: new Date(T0 + CIRCUIT_POLICY.coolDownMs).toISOString(),
      failures: 5,
      last_error: "exited 1",
      reopened: false,
      pid: Deno.pid,
    });
    assert.equal((await Deno.stat(`${root}/hooks/circuits/gate.json`)).mode! & 0o777, 0o600);
    await runner.run("work_item_start", startCtx());
    assert.equal(ex.calls.length, 5, "open: skipped while its file is there");

    broken = false;
    assert.equal(await store.remove("gate"), true); // what `the-loop hooks reset gate` does
    clock.now += 1000; // long before the cool-down ends
    const ctx = await runner.run("work_item_start", startCtx());
    assert.equal(ex.calls.length, 6);
    assert.equal(ex.calls[5].opts.probe, true);
    assert.equal(ctx.proceed, true);
    const [closed] = sink.ofType("hooks.circuit_closed");
    assert.deepEqual([closed.after, closed.skipped], ["reset", 1]);
    assert.equal(await store.read("gate"), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("circuit: a reload re-arms what the previous runner had open, and what the state root records", async () => {
  const root = await Deno.makeTempDir({ prefix: "circuit-reload-" });
  try {
    const store = new FileCircuitStore(root);
    const failing = () => {
      throw new HookFailure("down");
    };
    const old = setup([
      { entry: entryOf("a"), executor: fakeExecutor("a", failing) },
      { entry: entryOf("b"), executor: fakeExecutor("b", failing) },
    ]);
    for (let i = 0; i < 5; i++) await old.runner.run("work_item_start", startCtx());
    await old.runner.run("work_item_start", startCtx());
    // "c" was left open by a daemon that is gone
    await store.write({
      hook: "c",
      state: "open",
      kind: "module",
      required: false,
      opened_at: "2025-12-31T23:00:00.000Z",
      retry_at: "2025-12-31T23:00:30.000Z",
      failures: 5,
      last_error: "Uncaught Error: storm",
      reopened: false,
      pid: 999_999_999,
    });
    const fresh = setup([
      { entry: entryOf("a"), executor: fakeExecutor("a", () => ({ answer: null })) },
      { entry: entryOf("c"), executor: fakeExecutor("c", () => ({ answer: null })) },
    ], { store });
    await fresh.runner.rearmAfterReload(old.runner);
    const closed = fresh.sink.ofType("hooks.circuit_closed");
    assert.deepEqual(closed.map((r) => [r.hook, r.after, r.skipped, r.opened_at]), [
      ["a", "reload", 1, new Date(T0).toISOString()],
      ["c", "reload", 0, "2025-12-31T23:00:00.000Z"],
    ]);
    assert.equal(await store.read("c"), undefined);
    assert.deepEqual(fresh.runner.circuits().map((c) => c.state), ["closed", "closed"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
