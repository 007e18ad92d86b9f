import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { HookFailure, HookTimeout } from "./executor.ts";
import { Runner, type RunnerEntry } from "./runner.ts";
import { entryOf, fakeExecutor, phaseCtx, startCtx } from "./_test_utils.ts";

function setup(entries: RunnerEntry[], opts: { secrets?: () => string[] } = {}) {
  const sink = new MemorySink({ strict: true });
  const warnings: string[] = [];
  let clock = Date.UTC(2026, 0, 1);
  const runner = new Runner({
    entries,
    sink,
    warn: (m) => warnings.push(m),
    now: () => (clock += 7),
    ...opts,
  });
  return { runner, sink, warnings };
}

const pass = () => ({ answer: null });

Deno.test("hooks chain in declaration order, each seeing the previous answer; same object back", async () => {
  const a = fakeExecutor("a", () => ({ answer: { reason: "a" } }));
  const b = fakeExecutor("b", (_p, params) => ({ answer: { reason: `${params.reason}b` } }));
  const { runner, sink } = setup([{ entry: entryOf("a"), executor: a }, {
    entry: entryOf("b"),
    executor: b,
  }]);
  const ctx = startCtx();
  const out = await runner.run("work_item_start", ctx);
  assert.equal(out, ctx);
  assert.equal(ctx.reason, "ab");
  assert.equal(ctx.proceed, true);
  assert.equal(b.calls[0].params.reason, "a");
  assert.deepEqual(sink.ofType("hooks.ran").map((r) => r.hook), ["a", "b"]);
  assert.deepEqual(sink.ofType("hooks.decided").map((r) => [r.hook, r.changed]), [
    ["a", ["reason"]],
    ["b", ["reason"]],
  ]);
  assert.equal(a.calls[0].opts.timeoutMs, 5000);
  assert.notEqual(a.calls[0].params, ctx, "the hook gets the JSON form, not the live object");
});

Deno.test("a hook that throws, times out, or answers a fact, a wrong type or an unknown key is its own failure", async () => {
  const bad = [
    fakeExecutor("throws", () => {
      throw new HookFailure("boom");
    }),
    fakeExecutor("slow", () => {
      throw new HookTimeout("no answer within 5000 ms", { leaked: true });
    }),
    fakeExecutor("fact", () => ({ answer: { actor: "eve", reason: "x" } })),
    fakeExecutor("wrongtype", () => ({ answer: { proceed: "no" } })),
    fakeExecutor("unknown", () => ({ answer: { approve: true } })),
  ];
  const last = fakeExecutor("last", pass);
  const { runner, sink, warnings } = setup(
    [...bad, last].map((executor) => ({ entry: entryOf(executor.name), executor })),
  );
  const ctx = startCtx();
  const before = structuredClone(ctx);
  await runner.run("work_item_start", ctx);
  assert.deepEqual(ctx, before, "no failing hook changed the context");
  assert.equal(last.calls.length, 1, "the chain went on");
  const failed = sink.ofType("hooks.failed");
  assert.deepEqual(failed.map((r) => r.hook), ["throws", "slow", "fact", "wrongtype", "unknown"]);
  assert.match(String(failed[0].error), /boom/);
  assert.match(String(failed[2].error), /"actor" is a fact, not a decision/);
  assert.match(String(failed[3].error), /decision "proceed" must be a boolean/);
  assert.match(String(failed[4].error), /"approve" is not a field of work_item_start/);
  assert.ok(failed.every((r) => r.required === false && r.work_item === "github:acme/app#42"));
  const [timedOut] = sink.ofType("hooks.timed_out");
  assert.equal(timedOut.hook, "slow");
  assert.equal(timedOut.timeout_ms, 5000);
  assert.equal(timedOut.leaked, true);
  assert.equal(timedOut.level, "warning");
  assert.match(String(timedOut.note), /worker thread could not be stopped.*core busy until/);
  assert.deepEqual(sink.ofType("hooks.ran").map((r) => r.disposition), [
    "failed",
    "timed_out",
    "failed",
    "failed",
    "failed",
    "passed",
  ]);
  assert.equal(warnings.length, 5);
  assert.match(warnings[0], /^hook "throws" at work_item_start failed: boom/);
  assert.match(warnings[1], /timed out after 5000 ms: its worker thread could not be stopped/);
});

Deno.test("a required hook's failure refuses a proceed point, and is only a failure elsewhere", async () => {
  const boom = () => {
    throw new HookFailure("unreachable");
  };
  const { runner, sink, warnings } = setup([
    { entry: entryOf("gate", { required: true }), executor: fakeExecutor("gate", boom) },
  ]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(ctx.proceed, false);
  assert.equal(ctx.reason, 'required hook "gate" failed: unreachable');
  const [refused] = sink.ofType("hooks.refused");
  assert.equal(refused.reason, 'required hook "gate" failed: unreachable');
  assert.equal(sink.ofType("hooks.failed")[0].required, true);
  assert.equal(sink.ofType("hooks.ran")[0].disposition, "failed");
  assert.ok(warnings.some((w) => /is required, so the operation is refused/.test(w)));

  const phase = await runner.run("phase_changed", phaseCtx());
  assert.equal(phase.notify, true);
  assert.equal(sink.ofType("hooks.refused").length, 1);
  assert.equal(sink.ofType("hooks.failed").length, 2);
});

Deno.test("a required hook's refusal reason is the error's first line; the event keeps it all", async () => {
  const boom = () => {
    throw new HookFailure("roster unreadable\n    at file:///srv/hooks/roster.ts:3:9");
  };
  const { runner, sink } = setup([
    { entry: entryOf("gate", { required: true }), executor: fakeExecutor("gate", boom) },
  ]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(ctx.reason, 'required hook "gate" failed: roster unreadable');
  assert.match(String(sink.ofType("hooks.failed")[0].error), /roster\.ts:3:9/);
});

Deno.test("a command's refusal refuses a proceed point; elsewhere it is a failure that says so", async () => {
  const refuser = fakeExecutor("audit", () => ({
    answer: null,
    refused: { reason: "mallory is not on the roster" },
    telemetry: { exit_code: 2, stdout: "", stderr: "mallory is not on the roster\n" },
  }), { kind: "command" });
  const { runner, sink } = setup([{ entry: entryOf("audit"), executor: refuser }]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(ctx.proceed, false);
  assert.equal(ctx.reason, "mallory is not on the roster");
  const [refused] = sink.ofType("hooks.refused");
  assert.deepEqual(
    [refused.point, refused.hook, refused.reason, refused.work_item],
    ["work_item_start", "audit", "mallory is not on the roster", "github:acme/app#42"],
  );
  const [ran] = sink.ofType("hooks.ran");
  assert.equal(ran.disposition, "refused");
  assert.equal(ran.exit_code, 2);
  assert.deepEqual(ran.changed, ["proceed", "reason"]);

  const phase = await runner.run("phase_changed", phaseCtx());
  assert.equal(phase.notify, true);
  const [failed] = sink.ofType("hooks.failed");
  assert.match(String(failed.error), /phase_changed has no proceed decision.*treated as a failure/);
  assert.equal(sink.ofType("hooks.ran")[1].disposition, "failed");
});

Deno.test("an answer with proceed=false is recorded as hooks.refused, and a refusal stands", async () => {
  const no = fakeExecutor("no", () => ({ answer: { proceed: false, reason: "frozen" } }));
  const yes = fakeExecutor("yes", () => ({ answer: { proceed: true, reason: "" } }));
  const { runner, sink, warnings } = setup([
    { entry: entryOf("no"), executor: no },
    { entry: entryOf("yes"), executor: yes },
  ]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(ctx.proceed, false);
  assert.equal(ctx.reason, "frozen");
  assert.deepEqual(sink.ofType("hooks.refused").map((r) => [r.hook, r.reason]), [["no", "frozen"]]);
  assert.deepEqual(sink.ofType("hooks.ran").map((r) => r.disposition), ["refused", "passed"]);
  assert.ok(warnings.some((w) => /hook "yes" .* tried to overturn .*; the refusal stands/.test(w)));
});

Deno.test("hooks.ran carries point, hook, kind, work_item, times, duration, disposition, changed, output", async () => {
  const ex = fakeExecutor("audit", () => ({
    answer: { reason: "ok" },
    telemetry: { exit_code: 0, stdout: "{}", stderr: "note", stdout_truncated: false },
  }), { kind: "command" });
  const { runner, sink } = setup([{ entry: entryOf("audit"), executor: ex }]);
  await runner.run("work_item_start", startCtx());
  const [ran] = sink.ofType("hooks.ran");
  const { ts: _ts, pid: _pid, ...rest } = ran;
  assert.deepEqual(rest, {
    source: "test",
    event: "hooks.ran",
    level: "info",
    point: "work_item_start",
    hook: "audit",
    kind: "command",
    work_item: "github:acme/app#42",
    started: "2026-01-01T00:00:00.007Z",
    ended: "2026-01-01T00:00:00.014Z",
    duration_ms: 7,
    disposition: "decided",
    changed: ["reason"],
    exit_code: 0,
    stdout: "{}",
    stderr: "note",
    stdout_truncated: false,
  });
});

Deno.test("disabled hooks and hooks that do not handle the point are not called", async () => {
  const off = fakeExecutor("off", pass);
  const elsewhere = fakeExecutor("elsewhere", pass, { on: ["session_spawn"] });
  const { runner, sink } = setup([
    { entry: entryOf("off", { enabled: false }), executor: off },
    { entry: entryOf("elsewhere"), executor: elsewhere },
  ]);
  await runner.run("work_item_start", startCtx());
  assert.equal(off.calls.length + elsewhere.calls.length, 0);
  assert.equal(sink.records.length, 0);
  assert.deepEqual(runner.names, ["elsewhere"]);
});

Deno.test("known secret values never reach an event or a warning", async () => {
  const secret = "s3cr3t-token-value";
  const leaky = fakeExecutor("leaky", () => {
    throw new HookFailure(`server said: bad token ${secret}`);
  }, { kind: "remote" });
  const { runner, sink, warnings } = setup(
    [{ entry: entryOf("leaky", { kind: "remote", required: true }), executor: leaky }],
    { secrets: () => [secret] },
  );
  const ctx = await runner.run("work_item_start", startCtx());
  const all = JSON.stringify(sink.records) + warnings.join("\n") + ctx.reason;
  assert.ok(!all.includes(secret), all);
  assert.match(String(sink.ofType("hooks.failed")[0].error), /bad token \[redacted\]/);
});

Deno.test("a reason a hook answers with is redacted before it is posted", async () => {
  const secret = "s3cr3t-granted-value";
  const says = fakeExecutor(
    "says",
    () => ({ answer: { proceed: false, reason: `key ${secret}` } }),
  );
  const { runner, sink } = setup([{ entry: entryOf("says", { kind: "module" }), executor: says }], {
    secrets: () => [secret],
  });
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(ctx.reason, "key [redacted]");
  assert.ok(!JSON.stringify(sink.records).includes(secret));
});

Deno.test("anything unexpected inside run is caught and the context returned as it stands", async () => {
  const broken = fakeExecutor("broken", pass);
  broken.handles = () => {
    throw new Error("handles exploded");
  };
  const after = fakeExecutor("after", () => ({ answer: { reason: "still ran" } }));
  const { runner, warnings } = setup([
    { entry: entryOf("broken"), executor: broken },
    { entry: entryOf("after"), executor: after },
  ]);
  const ctx = startCtx();
  assert.equal(await runner.run("work_item_start", ctx), ctx);
  assert.equal(ctx.reason, "still ran");
  assert.match(warnings[0], /unexpected error running hook "broken" .*handles exploded/);
});

Deno.test("close closes every executor once, and a closed runner calls nothing", async () => {
  const a = fakeExecutor("a", pass);
  const { runner } = setup([{ entry: entryOf("a"), executor: a }]);
  await Promise.all([runner.close(), runner.close()]);
  assert.equal(a.closed, 1);
  await runner.run("work_item_start", startCtx());
  assert.equal(a.calls.length, 0);
});

Deno.test("a run's events reach the sink as one batch, after the chain, in call order", async () => {
  const batches: string[][] = [];
  const sink = {
    emit: () => assert.fail("the runner batches its events"),
    emitBatch: (events: readonly { event: string }[]) =>
      void batches.push(events.map((e) => e.event)),
  };
  const runner = new Runner({
    entries: [
      { entry: entryOf("a"), executor: fakeExecutor("a", () => ({ answer: null })) },
      { entry: entryOf("b"), executor: fakeExecutor("b", () => ({ answer: { reason: "x" } })) },
    ],
    sink,
  });
  await runner.run("work_item_start", startCtx());
  assert.deepEqual(batches, [["hooks.ran", "hooks.decided", "hooks.ran"]]);
});

Deno.test("hooks.ran's duration_ms keeps sub-millisecond precision", async () => {
  let t = 1_000;
  const sink = new MemorySink();
  const runner = new Runner({
    entries: [{ entry: entryOf("a"), executor: fakeExecutor("a", () => ({ answer: null })) }],
    sink,
    now: () => (t += 0.0625),
  });
  await runner.run("work_item_start", startCtx());
  assert.equal(sink.ofType("hooks.ran")[0].duration_ms, 0.063);
});
