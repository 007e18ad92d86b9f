/**
 * The runner's failure policy `onError: suspend`: a failure at a point with a `proceed`
 * decision parks the operation (a {@linkcode Suspension}, the chain stopped there), a refusal
 * does not; `retry_backoff` calls the hook again after each wait; a resumed run goes on from
 * the parking hook; elsewhere a failure is only a failure.
 *
 * @module
 */
import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { HookFailure, HookTimeout } from "./executor.ts";
import { Runner, type RunnerEntry, type RunnerOptions, suspensionOf } from "./runner.ts";
import { entryOf, fakeExecutor, phaseCtx, startCtx } from "./_test_utils.ts";
import type { Entry } from "./declaration/mod.ts";
import { createCommandExecutor } from "./executors/mod.ts";

function setup(entries: RunnerEntry[], opts: Partial<RunnerOptions> = {}) {
  const sink = new MemorySink({ strict: true });
  const warnings: string[] = [];
  const waits: number[] = [];
  const runner = new Runner({
    entries,
    sink,
    warn: (m) => warnings.push(m),
    now: () => Date.UTC(2026, 0, 1),
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...opts,
  });
  return { runner, sink, warnings, waits };
}

const pass = () => ({ answer: null });
const boom = () => {
  throw new HookFailure("gate.example unreachable\n    at stack line");
};

/** A hook failing its first `n` calls, then answering `answer`. */
function failsThen(name: string, n: number, answer: Record<string, unknown> | null = null) {
  let calls = 0;
  return fakeExecutor(name, () => {
    if (++calls <= n) throw new HookFailure(`down (call ${calls})`);
    return { answer };
  });
}

function suspending(name: string, opts: Partial<Entry> = {}): Entry {
  return { ...entryOf(name, { onError: "suspend" }), ...opts } as Entry;
}

Deno.test("suspend: a failure at a proceed point records a suspension and stops the chain; proceed untouched", async () => {
  const gate = fakeExecutor("gate", boom);
  const later = fakeExecutor("later", pass);
  const earlier = fakeExecutor("earlier", () => ({ answer: { reason: "noted" } }));
  const { runner, sink, warnings } = setup([
    { entry: entryOf("earlier"), executor: earlier },
    { entry: suspending("gate", { suspendTimeoutMinutes: 15 }), executor: gate },
    { entry: entryOf("later"), executor: later },
  ]);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx);
  assert.deepEqual(suspensionOf(ctx), {
    hook: "gate",
    point: "work_item_start",
    mode: "wait_for_resume",
    declared: "wait_for_resume",
    error: "gate.example unreachable",
    attempts: 1,
    timeoutMinutes: 15,
  });
  assert.equal(later.calls.length, 0, "the hooks after it are not called");
  assert.equal(ctx.proceed, true, "parked, not refused");
  assert.equal(ctx.reason, "noted", "the earlier hook's decisions stay");
  assert.deepEqual(sink.ofType("hooks.refused"), []);
  assert.deepEqual(sink.ofType("hooks.failed").map((r) => [r.hook, r.required]), [
    ["gate", false],
  ]);
  assert.ok(
    warnings.some((w) =>
      /hook "gate" at work_item_start failed; it is onError: suspend, so the operation is suspended \(wait_for_resume\)/
        .test(w)
    ),
    warnings.join("\n"),
  );
});

Deno.test("suspend: a timeout is a failure too; wait_then_retry parks as wait_then_retry", async () => {
  const slow = fakeExecutor("slow", () => {
    throw new HookTimeout("no answer within 5000 ms");
  });
  const { runner } = setup([
    { entry: suspending("slow", { suspendMode: "wait_then_retry" }), executor: slow },
  ]);
  const ctx = await runner.run("session_spawn", startCtx() as never);
  const s = suspensionOf(ctx);
  assert.deepEqual([s?.mode, s?.declared, s?.point, s?.attempts], [
    "wait_then_retry",
    "wait_then_retry",
    "session_spawn",
    1,
  ]);
});

Deno.test("suspend: a hook that answers proceed: false refuses; a refusal is not a suspension", async () => {
  const gate = fakeExecutor("gate", () => ({ answer: { proceed: false, reason: "not today" } }));
  const later = fakeExecutor("later", pass);
  const { runner } = setup([
    { entry: suspending("gate"), executor: gate },
    { entry: entryOf("later"), executor: later },
  ]);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx);
  assert.equal(suspensionOf(ctx), undefined);
  assert.deepEqual([ctx.proceed, ctx.reason], [false, "not today"]);
  assert.equal(later.calls.length, 1, "the chain goes on as after any refusal");
});

Deno.test("suspend: after an earlier refusal a failure is only a failure", async () => {
  const no = fakeExecutor("no", () => ({ answer: { proceed: false, reason: "no" } }));
  const gate = fakeExecutor("gate", boom);
  const { runner } = setup([
    { entry: entryOf("no"), executor: no },
    { entry: suspending("gate"), executor: gate },
  ]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(suspensionOf(ctx), undefined);
  assert.equal(ctx.proceed, false);
});

Deno.test("retry_backoff: failing twice then passing applies its answer, after 100 and 200 ms, two hooks.retrying", async () => {
  const gate = failsThen("gate", 2, { reason: "third time" });
  const later = fakeExecutor("later", pass);
  const { runner, sink, waits, warnings } = setup([
    {
      entry: suspending("gate", { suspendMode: "retry_backoff", retryBackoffMs: [100, 200, 400] }),
      executor: gate,
    },
    { entry: entryOf("later"), executor: later },
  ]);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx);
  assert.equal(suspensionOf(ctx), undefined);
  assert.equal(ctx.reason, "third time", "the answer that was not a failure is applied");
  assert.equal(later.calls.length, 1, "the chain goes on");
  assert.deepEqual(waits, [100, 200]);
  assert.equal(gate.calls.length, 3);
  const retrying = sink.ofType("hooks.retrying");
  assert.deepEqual(
    retrying.map((r) => [r.hook, r.point, r.attempt, r.wait_ms, r.error, r.work_item]),
    [
      ["gate", "work_item_start", 1, 100, "down (call 1)", "github:acme/app#42"],
      ["gate", "work_item_start", 2, 200, "down (call 2)", "github:acme/app#42"],
    ],
  );
  assert.deepEqual(sink.ofType("hooks.ran").map((r) => [r.hook, r.disposition]), [
    ["gate", "failed"],
    ["gate", "failed"],
    ["gate", "decided"],
    ["later", "passed"],
  ]);
  assert.ok(warnings.some((w) => /failed \(attempt 2\).*called again in 200 ms/.test(w)));
});

Deno.test("retry_backoff: the default waits are 100, 200 and 400 ms; all failing parks as wait_for_resume after 4 calls", async () => {
  const gate = fakeExecutor("gate", boom);
  const later = fakeExecutor("later", pass);
  const entry = entryOf("gate", { onError: "suspend", suspendMode: "retry_backoff" });
  const { runner, sink, waits } = setup([
    { entry, executor: gate },
    { entry: entryOf("later"), executor: later },
  ]);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx);
  assert.deepEqual(waits, [100, 200, 400]);
  assert.equal(gate.calls.length, 4);
  assert.equal(later.calls.length, 0);
  assert.deepEqual(suspensionOf(ctx), {
    hook: "gate",
    point: "work_item_start",
    mode: "wait_for_resume",
    declared: "retry_backoff",
    error: "gate.example unreachable",
    attempts: 4,
  });
  assert.equal(ctx.proceed, true);
  assert.equal(sink.ofType("hooks.retrying").length, 3);
  assert.equal(sink.ofType("hooks.failed").length, 4);
});

Deno.test("retry_backoff: a refusal it answers on a retry is an answer", async () => {
  let calls = 0;
  const gate = fakeExecutor("gate", () => {
    if (++calls === 1) throw new HookFailure("flaky");
    return { answer: { proceed: false, reason: "denied" } };
  });
  const { runner } = setup([
    {
      entry: suspending("gate", { suspendMode: "retry_backoff", retryBackoffMs: [0] }),
      executor: gate,
    },
  ]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(suspensionOf(ctx), undefined);
  assert.deepEqual([ctx.proceed, ctx.reason], [false, "denied"]);
});

Deno.test("retry_backoff with the real delay: tiny waits, the third call answers", async () => {
  const gate = failsThen("gate", 2);
  const sink = new MemorySink({ strict: true });
  const runner = new Runner({
    entries: [{
      entry: suspending("gate", { suspendMode: "retry_backoff", retryBackoffMs: [1, 1, 1] }),
      executor: gate,
    }],
    sink,
  });
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(suspensionOf(ctx), undefined);
  assert.equal(gate.calls.length, 3);
  await runner.close();
});

Deno.test("suspend at a point without proceed: only a failure (retries still run), no suspension, the chain goes on", async () => {
  const gate = failsThen("gate", 10);
  const later = fakeExecutor("later", pass);
  const { runner, waits } = setup([
    {
      entry: suspending("gate", { suspendMode: "retry_backoff", retryBackoffMs: [5, 6] }),
      executor: gate,
    },
    { entry: entryOf("later"), executor: later },
  ]);
  const ctx = phaseCtx();
  await runner.run("phase_changed", ctx);
  assert.equal(suspensionOf(ctx), undefined);
  assert.deepEqual(waits, [5, 6]);
  assert.equal(gate.calls.length, 3);
  assert.equal(later.calls.length, 1);

  const plain = fakeExecutor("plain", boom);
  const after = fakeExecutor("after", pass);
  const two = setup([
    { entry: suspending("plain"), executor: plain },
    { entry: entryOf("after"), executor: after },
  ]);
  const ctx2 = phaseCtx();
  await two.runner.run("phase_changed", ctx2);
  assert.equal(suspensionOf(ctx2), undefined);
  assert.equal(after.calls.length, 1);
});

Deno.test("suspend: a hook whose circuit is open cannot answer, so it suspends", async () => {
  const gate = fakeExecutor("gate", boom);
  const { runner, sink } = setup(
    [{ entry: suspending("gate"), executor: gate }],
    { circuit: { failures: 1 } },
  );
  await runner.run("work_item_start", startCtx()); // opens the circuit
  assert.equal(sink.ofType("hooks.circuit_opened").length, 1);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx);
  assert.equal(gate.calls.length, 1, "not called: skipped");
  assert.deepEqual(sink.ofType("hooks.ran").map((r) => r.disposition), ["failed", "skipped"]);
  const s = suspensionOf(ctx);
  assert.equal(s?.hook, "gate");
  assert.match(
    String(s?.error),
    /^hook "gate" is unavailable: its circuit is open after 1 failure/,
  );
  assert.equal(ctx.proceed, true);
});

Deno.test("resume {rerun: false}: the parking hook and those before it are skipped; the later ones run", async () => {
  const earlier = fakeExecutor("earlier", pass);
  const gate = fakeExecutor("gate", boom);
  const later = fakeExecutor("later", () => ({ answer: { reason: "later ran" } }));
  const { runner } = setup([
    { entry: entryOf("earlier"), executor: earlier },
    { entry: suspending("gate"), executor: gate },
    { entry: entryOf("later"), executor: later },
  ]);
  const parked = await runner.run("work_item_start", startCtx());
  assert.equal(suspensionOf(parked)?.hook, "gate");
  const ctx = startCtx();
  await runner.run("work_item_start", ctx, { resume: { hook: "gate", rerun: false } });
  assert.equal(earlier.calls.length, 1, "earlier ran before the park only");
  assert.equal(gate.calls.length, 1, "gate is not called again");
  assert.equal(later.calls.length, 1);
  assert.equal(ctx.reason, "later ran");
  assert.equal(suspensionOf(ctx), undefined);
  assert.equal(ctx.proceed, true);
});

Deno.test("resume {rerun: true}: the hook is called once more; its failure refuses with the block reason", async () => {
  const gate = fakeExecutor("gate", boom);
  const later = fakeExecutor("later", pass);
  const { runner, sink, warnings } = setup([
    { entry: suspending("gate", { suspendMode: "wait_then_retry" }), executor: gate },
    { entry: entryOf("later"), executor: later },
  ]);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx, { resume: { hook: "gate", rerun: true } });
  assert.equal(gate.calls.length, 1);
  assert.equal(suspensionOf(ctx), undefined, "never suspends again");
  assert.equal(ctx.proceed, false);
  assert.equal(ctx.reason, 'required hook "gate" failed: gate.example unreachable');
  assert.equal(sink.ofType("hooks.refused")[0].hook, "gate");
  assert.equal(sink.ofType("hooks.failed")[0].required, true);
  assert.equal(later.calls.length, 1, "the hooks after it run as usual");
  assert.ok(warnings.some((w) => /failed again when called after the resume/.test(w)));
});

Deno.test("resume {rerun: true}: an answer this time is applied, and a later suspend hook may park", async () => {
  const gate = fakeExecutor("gate", () => ({ answer: { reason: "fine now" } }));
  const second = fakeExecutor("second", boom);
  const { runner } = setup([
    { entry: suspending("gate", { suspendMode: "wait_then_retry" }), executor: gate },
    { entry: suspending("second"), executor: second },
  ]);
  const ctx = startCtx();
  await runner.run("work_item_start", ctx, { resume: { hook: "gate", rerun: true } });
  assert.equal(ctx.reason, "fine now");
  assert.equal(suspensionOf(ctx)?.hook, "second");
});

Deno.test("resume after a hook a reload removed: every hook runs, and a warning names it", async () => {
  const a = fakeExecutor("a", pass);
  const b = fakeExecutor("b", pass);
  const { runner, warnings } = setup([
    { entry: entryOf("a"), executor: a },
    { entry: entryOf("b"), executor: b },
  ]);
  await runner.run("work_item_start", startCtx(), { resume: { hook: "gone", rerun: false } });
  assert.deepEqual([a.calls.length, b.calls.length], [1, 1]);
  assert.ok(warnings.some((w) => /after hook "gone", which is no longer in the chain/.test(w)));
});

Deno.test("block and warn keep their behaviour beside suspend", async () => {
  const w = fakeExecutor("w", boom);
  const b = fakeExecutor("b", boom);
  const { runner } = setup([
    { entry: entryOf("w", { onError: "warn" }), executor: w },
    { entry: entryOf("b", { onError: "block" }), executor: b },
  ]);
  const ctx = await runner.run("work_item_start", startCtx());
  assert.equal(suspensionOf(ctx), undefined);
  assert.equal(ctx.proceed, false);
  assert.equal(ctx.reason, 'required hook "b" failed: gate.example unreachable');
});

Deno.test("close() during a retry's wait ends the run promptly; the operation parks, not let through", async () => {
  const gate = fakeExecutor("gate", boom);
  const later = fakeExecutor("later", pass);
  let waiting: () => void = () => {};
  const started = new Promise<void>((r) => waiting = r);
  const { runner } = setup([
    {
      entry: suspending("gate", { suspendMode: "retry_backoff", retryBackoffMs: [60_000] }),
      executor: gate,
    },
    { entry: entryOf("later"), executor: later },
  ], {
    // a wait that ends only when it is aborted: without close() aborting it the run never ends
    sleep: (_ms, signal) =>
      new Promise<void>((_, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        waiting();
      }),
  });
  const ctx = startCtx();
  const run = runner.run("work_item_start", ctx);
  await started;
  await runner.close();
  await run;
  assert.equal(gate.calls.length, 1, "not called again");
  assert.equal(later.calls.length, 0);
  const s = suspensionOf(ctx);
  assert.deepEqual([s?.mode, s?.declared, s?.attempts], ["wait_for_resume", "retry_backoff", 1]);
});

Deno.test("retry_backoff with a real command hook: exit 1 twice (a failure), then exit 2 (a refusal, an answer)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "suspend-cmd-" });
  try {
    const script = `${dir}/gate.sh`;
    await Deno.writeTextFile(
      script,
      "#!/bin/sh\ncat >/dev/null\necho x >> calls\nn=$(wc -l < calls)\n" +
        '[ "$n" -le 2 ] && { echo "down $n" >&2; exit 1; }\necho "not on the roster" >&2; exit 2\n',
    );
    await Deno.chmod(script, 0o755);
    const executor = createCommandExecutor({ name: "gate", argv: [script], cwd: dir });
    const entry = {
      ...entryOf("gate", {
        onError: "suspend",
        suspendMode: "retry_backoff",
        retryBackoffMs: [0, 0, 0],
      }),
      argv: [script],
      cwd: dir,
    } as Entry;
    const { runner, sink, waits } = setup([{ entry, executor }]);
    const ctx = await runner.run("work_item_start", startCtx());
    await runner.close();
    assert.equal(suspensionOf(ctx), undefined);
    assert.deepEqual([ctx.proceed, ctx.reason], [false, "not on the roster"]);
    assert.deepEqual(waits, [0, 0]);
    assert.deepEqual(sink.ofType("hooks.ran").map((r) => [r.disposition, r.exit_code]), [
      ["failed", 1],
      ["failed", 1],
      ["refused", 2],
    ]);
    assert.equal(sink.ofType("hooks.retrying").length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
