/**
 * The restart storm, as an attack. First, the spelling that used to start one: a hook that
 * defeats the worker runtime's error handlers (`Event.prototype.preventDefault` replaced, or the
 * events' `reason`/`error` getters) so its async errors would reach the-loop and kill its
 * worker. The runtime now keeps the originals, so that is asserted harmless. Then a worker that
 * really does keep dying (`testdata/_dies_soon.ts`: a Proxy whose traps throw, thrown from an
 * 'abort' listener Deno itself fires), loaded through the real bundler into real workers and
 * called by a real {@linkcode Runner} with an injected clock, to check the restart backoff and
 * the circuit breaker. The backoff's clock is frozen and its numbers small, the circuit's clock
 * is the test's: counts come from the executor's own restart counter and the events, and no
 * assertion depends on how long anything took.
 *
 * @module
 */
import assert from "node:assert/strict";
import { MemorySink } from "../../../events/mod.ts";
import type { Executor, ExecutorStatus } from "../../executor.ts";
import type { CircuitPolicy } from "../../circuit.ts";
import { FileCircuitStore } from "../../circuit_store.ts";
import { Runner } from "../../runner.ts";
import { entryOf, startCtx } from "../../_test_utils.ts";
import { bundleHook } from "./bundler.ts";
import { workerPermissions } from "./permissions.ts";
import type { RestartClock, RestartPolicy } from "./_restart_backoff.ts";
import { startWorkerHook } from "./_worker_executor.ts";
import { fixture, scenario, within } from "./_test_utils.ts";

const T0 = Date.UTC(2026, 0, 1);

/** Small numbers: the eager restarts wait 0, 10 and 20 ms of real time. */
const RESTART: RestartPolicy = { baseMs: 20, maxMs: 1_000, eager: 3, stableMs: 60_000 };
/** The backoff's clock stands still: a delay never passes by itself, only a probe skips it. */
const FROZEN: RestartClock = { now: () => 0, random: () => 0 };
/** The runner's circuit; its clock is the test's, so the cool-down costs no real time. */
const CIRCUIT: CircuitPolicy = {
  failures: 5,
  windowMs: 60_000,
  coolDownMs: 5_000,
  maxCoolDownMs: 20_000,
};

function status(hook: Executor): ExecutorStatus {
  return hook.status!();
}

/** Resolves once `cond()` holds (checked every 10 ms); the bound only fails a hung test. */
function until(cond: () => boolean): Promise<void> {
  return within(
    10_000,
    (async () => {
      while (!cond()) await new Promise((r) => setTimeout(r, 10));
    })(),
  );
}

/** `testdata/<file>` in a worker, named after it, with the test's restart backoff. */
async function startFixture(file: string): Promise<Executor> {
  const { code } = await bundleHook(fixture(file));
  return await startWorkerHook({
    name: file.replace(/\.ts$/, "").replaceAll("_", "-"),
    code,
    permissions: workerPermissions(undefined, fixture(".")),
    restartPolicy: RESTART,
    restartClock: FROZEN,
  });
}

/** A runner over `hook` alone, with a clock the test moves and a circuit store in a temp dir. */
async function harness(hook: Executor, opts: { required: boolean }) {
  const root = await Deno.makeTempDir({ prefix: "storm-" });
  const store = new FileCircuitStore(root);
  const sink = new MemorySink({ strict: true });
  const clock = { now: T0 };
  const warnings: string[] = [];
  const runner = new Runner({
    entries: [{ entry: entryOf(hook.name, { kind: "module", ...opts }), executor: hook }],
    sink,
    warn: (m) => warnings.push(m),
    now: () => clock.now,
    circuit: CIRCUIT,
    circuitStore: store,
  });
  return {
    store,
    sink,
    clock,
    warnings,
    runner,
    async close() {
      await runner.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

function calm() {
  const ctx = startCtx();
  (ctx as { actor: string }).actor = "alice";
  return ctx;
}

/** Deaths in a row, as the message of a call refused during the backoff says them. */
function heldBack(deaths: number): RegExp {
  return new RegExp(
    `its worker died ${deaths} times in a row \\(last: Uncaught Error: storm\\); ` +
      "it is not started again for another [0-9.]+ s, so this call fails now$",
  );
}

Deno.test("attack: preventDefault defeated, or the events' reason/error getters made to throw — async throws are reported on stderr, the worker never dies, its calls still answer", async () => {
  // In a process of its own: a worker's runtime reports on the process's stderr, read here.
  const spellings = [
    "preventDefault",
    "getters",
    "preventDefault+getters",
    "defaultPrevented",
    "dispatchEvent",
  ];
  const r = await scenario("storm_neutralized_scenario.ts", { args: spellings });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  for (const spell of spellings) {
    // mallory's call answered, then the hook's other method (once every throw was dispatched),
    // then an ordinary start: one worker throughout, never restarted
    assert.deepEqual(out[spell], {
      storm: {},
      other: {},
      calm: {},
      status: { restarts: 0, crashes: 0, state: "running" },
    }, spell);
    for (
      const line of [
        `hook: uncaught error: Error: microtask storm (${spell})`,
        `hook: uncaught error: Error: timer storm (${spell})`,
        `hook: unhandled promise rejection: Error: rejected storm (${spell})`,
      ]
    ) {
      assert.ok(r.stderr.includes(`${line}\n`), `${line} not on stderr:\n${r.stderr}`);
    }
  }
  // the rejection with throwing getters, once per spelling, described without running them
  const poisoned = "hook: unhandled promise rejection: the hook threw an object that cannot be " +
    "described (converting it to text threw)\n";
  assert.equal(r.stderr.split(poisoned).length - 1, spellings.length, r.stderr);
  // nothing reached Deno's own reporting of an uncaught error (which ends the worker)
  assert.doesNotMatch(r.stderr, /Uncaught|its worker died/);
});

Deno.test("attack: a Proxy with throwing traps, thrown from an AbortSignal 'abort' listener at load, kills every worker — restarts stay bounded, the circuit opens, a required hook fails closed", async () => {
  const hook = await startFixture("storm_at_load.ts");
  const h = await harness(hook, { required: true });
  try {
    // Nobody calls it: it restarts on its own RESTART.eager times, then stays down.
    await until(() => status(hook).state === "waiting");
    assert.deepEqual(status(hook), {
      restarts: RESTART.eager,
      crashes: RESTART.eager + 1,
      lastCrash: "Uncaught Error: storm",
      state: "waiting",
    });

    // Every call fails at once, without a worker (the backoff's delay never passes), and
    // refuses the start.
    for (let i = 0; i < CIRCUIT.failures; i++) {
      h.clock.now += 1000;
      const ctx = await h.runner.run("work_item_start", startCtx());
      assert.equal(ctx.proceed, false);
      assert.match(ctx.reason, /^required hook "storm-at-load" failed: (?!hook )/);
    }
    const failed = h.sink.ofType("hooks.failed").map((r) => String(r.error));
    assert.equal(failed.length, CIRCUIT.failures);
    for (const e of failed) assert.match(e, heldBack(RESTART.eager + 1));
    assert.equal(status(hook).restarts, RESTART.eager);
    const [opened, ...more] = h.sink.ofType("hooks.circuit_opened");
    assert.deepEqual(more, []);
    assert.deepEqual(
      [opened.hook, opened.required, opened.failures, opened.reopened, opened.cool_down_ms],
      ["storm-at-load", true, CIRCUIT.failures, false, CIRCUIT.coolDownMs],
    );
    assert.equal((await h.store.read("storm-at-load"))?.failures, CIRCUIT.failures);

    // Open: the required hook's operations are refused without calling it; no restart, no event.
    const mark = h.sink.records.length;
    for (let i = 0; i < 20; i++) {
      h.clock.now += 100;
      const ctx = await h.runner.run("work_item_start", startCtx());
      assert.equal(ctx.proceed, false);
      assert.match(
        ctx.reason,
        /^required hook "storm-at-load" is unavailable: its circuit is open/,
      );
    }
    assert.equal(status(hook).restarts, RESTART.eager);
    const since = h.sink.records.slice(mark);
    assert.deepEqual(since.filter((r) => /circuit|failed/.test(r.event)), []);
    assert.deepEqual(
      [...new Set(since.filter((r) => r.event === "hooks.ran").map((r) => r.disposition))],
      ["skipped"],
    );

    // After the cool-down one probe is let through: it starts a worker at once (the executor's
    // own backoff is not waited out), which dies under it, so the circuit opens for longer.
    h.clock.now = T0 + CIRCUIT.failures * 1000 + CIRCUIT.coolDownMs;
    const probed = await h.runner.run("work_item_start", startCtx());
    assert.equal(probed.proceed, false);
    assert.equal(status(hook).restarts, RESTART.eager + 1);
    assert.match(
      String(h.sink.ofType("hooks.failed").at(-1)?.error),
      /its worker died: Uncaught Error: storm/,
    );
    const reopened = h.sink.ofType("hooks.circuit_opened")[1];
    assert.deepEqual([reopened.reopened, reopened.cool_down_ms], [true, 2 * CIRCUIT.coolDownMs]);

    // `the-loop hooks reset` removes the file: the next call is a probe, long before its time.
    assert.equal(await h.store.remove("storm-at-load"), true);
    h.clock.now += 1000;
    await h.runner.run("work_item_start", startCtx());
    assert.equal(status(hook).restarts, RESTART.eager + 2);
    assert.equal(h.sink.ofType("hooks.circuit_opened").length, 3);
    assert.equal((await h.store.read("storm-at-load"))?.reopened, true);
    // and it stays down: nothing restarts it on its own
    assert.equal(status(hook).state, "waiting");
  } finally {
    await h.close();
  }
});

Deno.test("attack: the same worker-killing throw at each of mallory's calls — at most one restart per call, the circuit opens, then a calm probe re-arms it", async () => {
  const hook = await startFixture("storm_on_call.ts");
  const h = await harness(hook, { required: false });
  try {
    assert.equal((await h.runner.run("work_item_start", calm())).proceed, true);
    for (let i = 0; i < CIRCUIT.failures; i++) {
      await until(() => status(hook).state !== "restarting"); // an eager restart, if any, is done
      h.clock.now += 1000;
      const ctx = await h.runner.run("work_item_start", startCtx()); // mallory
      assert.equal(ctx.proceed, true); // not required: its failure refuses nothing
    }
    // each call killed the worker it was sent to, until the backoff held the next one back
    const failed = h.sink.ofType("hooks.failed").map((r) => String(r.error));
    assert.equal(failed.length, CIRCUIT.failures);
    const deaths = RESTART.eager + 1;
    for (const e of failed.slice(0, deaths)) {
      assert.match(e, /its worker died: Uncaught Error: storm/);
    }
    for (const e of failed.slice(deaths)) assert.match(e, heldBack(deaths));
    assert.deepEqual(status(hook), {
      restarts: RESTART.eager,
      crashes: deaths,
      lastCrash: "Uncaught Error: storm",
      state: "waiting",
    });
    const [opened, ...more] = h.sink.ofType("hooks.circuit_opened");
    assert.deepEqual(more, []);
    assert.deepEqual([opened.required, opened.failures], [false, CIRCUIT.failures]);
    assert.match(String(opened.last_error), heldBack(deaths));

    // open and not required: skipped, the start proceeds, nothing restarts
    const ctx = await h.runner.run("work_item_start", startCtx());
    assert.equal(ctx.proceed, true);
    assert.equal(h.sink.ofType("hooks.ran").at(-1)?.disposition, "skipped");
    assert.equal(status(hook).restarts, RESTART.eager);

    // after the cool-down a calm probe gets a fresh worker and closes the circuit
    h.clock.now += CIRCUIT.coolDownMs;
    assert.equal((await h.runner.run("work_item_start", calm())).proceed, true);
    const [closed, ...again] = h.sink.ofType("hooks.circuit_closed");
    assert.deepEqual(again, []);
    assert.deepEqual([closed.after, closed.skipped], ["cool-down", 1]);
    assert.deepEqual([status(hook).restarts, status(hook).state], [RESTART.eager + 1, "running"]);
    assert.equal(await h.store.read("storm-on-call"), undefined);
    assert.equal(h.sink.ofType("hooks.ran").at(-1)?.disposition, "passed");
    assert.match(h.warnings.at(-1)!, /circuit is closed again \(cool-down\)/);
  } finally {
    await h.close();
  }
});
