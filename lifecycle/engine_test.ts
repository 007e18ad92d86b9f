import assert from "node:assert/strict";
import { loadConfig, type LoadedConfig } from "../config/mod.ts";
import { ProblemsError } from "../errors.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "./engine.ts";
import { Runner, suspensionOf } from "./runner.ts";
import { entryOf, fakeExecutor, startCtx } from "./_test_utils.ts";

/** A real cli-config.yaml (plus executable scripts) in a temp dir, loaded by the real loader. */
async function configWith(yaml: string, scripts: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "engine-" });
  for (const [name, body] of Object.entries(scripts)) {
    await Deno.mkdir(`${dir}/hooks`, { recursive: true });
    await Deno.writeTextFile(`${dir}/hooks/${name}`, body, { mode: 0o755 });
  }
  await Deno.writeTextFile(`${dir}/cli-config.yaml`, yaml);
  const env = (n: string) => (n === "HOME" ? dir : Deno.env.get(n));
  return await loadConfig({ flag: `${dir}/cli-config.yaml`, env, cwd: dir });
}

const env = (n: string) => Deno.env.get(n);
const REFUSE = "#!/bin/sh\ncat >/dev/null\necho 'not on the roster' >&2\nexit 2\n";

function setup() {
  const sink = new MemorySink({ strict: true });
  const warnings: string[] = [];
  return { sink, warnings, warn: (m: string) => warnings.push(m) };
}

Deno.test("an unconfigured process runs no hooks and returns the context unchanged", async () => {
  await engine.reset();
  const ctx = startCtx();
  const before = structuredClone(ctx);
  assert.equal(await engine.run("work_item_start", ctx), ctx);
  assert.deepEqual(ctx, before);
});

Deno.test("configureFromConfig loads the hooks, records hooks.loaded and runs them", async () => {
  const loaded = await configWith(
    'hooks:\n  - name: roster\n    command: ["./hooks/refuse.sh"]\n' +
      '  - name: off\n    command: ["./hooks/missing.sh"]\n    enabled: false\n',
    { "refuse.sh": REFUSE },
  );
  const { sink, warn } = setup();
  const runner = await engine.configureFromConfig(loaded, { strict: true, sink, env, warn });
  try {
    assert.equal(engine.configured(), runner);
    const [rec] = sink.ofType("hooks.loaded");
    assert.deepEqual([rec.count, rec.names], [1, ["roster"]]);
    const ctx = await engine.run("work_item_start", startCtx());
    assert.equal(ctx.proceed, false);
    assert.equal(ctx.reason, "not on the roster");
    assert.equal(sink.ofType("hooks.ran")[0].exit_code, 2);
  } finally {
    await engine.reset();
  }
});

Deno.test("strict: a bad declaration throws, records hooks.load_failed and keeps the old runner", async () => {
  const loaded = await configWith(
    "hooks:\n  - name: c\n    url: http://hooks.acme.example/x\n    tokenEnv: TOK\n",
  );
  const { sink, warn } = setup();
  const old = new Runner({ entries: [], sink });
  engine.configure(old);
  await assert.rejects(
    engine.configureFromConfig(loaded, { strict: true, sink, env, warn }),
    (e) =>
      e instanceof ProblemsError &&
      /cli-config\.yaml:3:10: hooks\[0\]\.url: .*cleartext/.test(e.message),
  );
  const [failed] = sink.ofType("hooks.load_failed");
  assert.equal(failed.strict, true);
  assert.match(String(failed.error), /cleartext/);
  assert.equal(engine.configured(), old);
  await engine.reset();
});

Deno.test("strict: an unset tokenEnv or a missing program fails the load, naming the entry", async () => {
  const loaded = await configWith(
    "hooks:\n  - name: r\n    url: https://hooks.acme.example/x\n    tokenEnv: THE_LOOP_TEST_UNSET_TOKEN\n" +
      '  - name: c\n    command: ["./hooks/nope.sh"]\n',
  );
  const { sink, warn } = setup();
  const err = await engine.configureFromConfig(loaded, { strict: true, sink, env, warn }).then(
    () => assert.fail("expected a failure"),
    (e) => e,
  );
  assert.ok(err instanceof ProblemsError);
  assert.deepEqual(err.problems.map((p) => [p.path, p.line]), [["hooks[0]", 2], ["hooks[1]", 5]]);
  assert.match(
    err.problems[0].message,
    /^hook "r": .*THE_LOOP_TEST_UNSET_TOKEN \(tokenEnv\) is not set/,
  );
  assert.match(err.problems[1].message, /^hook "c": command .*\/hooks\/nope.sh does not exist/);
  await engine.reset();
});

Deno.test("non-strict: a failed load installs an empty runner, records it and warns", async () => {
  const loaded = await configWith(
    "hooks:\n  - name: r\n    url: https://hooks.acme.example/x\n    headers: {X-A: b}\n    env: [A]\n",
  );
  const { sink, warnings, warn } = setup();
  const runner = await engine.configureFromConfig(loaded, { strict: false, sink, env, warn });
  assert.equal(engine.configured(), runner);
  assert.deepEqual(runner.names, []);
  const [failed] = sink.ofType("hooks.load_failed");
  assert.equal(failed.strict, false);
  assert.match(String(failed.error), /"env" applies to command: hooks only/);
  assert.match(warnings[0], /^hooks: running without hooks: /);
  const ctx = await engine.run("work_item_start", startCtx());
  assert.equal(ctx.proceed, true);
  await engine.reset();
});

Deno.test("reset closes the executors; configure replaces and closes the previous runner", async () => {
  const a = fakeExecutor("a", () => ({ answer: null }));
  const b = fakeExecutor("b", () => ({ answer: { reason: "b" } }));
  const sink = new MemorySink();
  engine.configure(new Runner({ entries: [{ entry: entryOf("a"), executor: a }], sink }));
  engine.configure(new Runner({ entries: [{ entry: entryOf("b"), executor: b }], sink }));
  assert.equal(a.closed, 1);
  assert.equal((await engine.run("work_item_start", startCtx())).reason, "b");
  await engine.reset();
  assert.equal(b.closed, 1);
  assert.equal(engine.configured(), undefined);
});

Deno.test("configureLazily loads once on the first run; a failing lazy load runs hookless", async () => {
  let loads = 0;
  const sink = new MemorySink();
  const b = fakeExecutor("b", () => ({ answer: { reason: "lazy" } }));
  await engine.configureLazily(() => {
    loads++;
    return Promise.resolve(new Runner({ entries: [{ entry: entryOf("b"), executor: b }], sink }));
  }, { sink });
  const [x, y] = await Promise.all([
    engine.run("work_item_start", startCtx()),
    engine.run("work_item_start", startCtx()),
  ]);
  assert.deepEqual([loads, x.reason, y.reason], [1, "lazy", "lazy"]);
  await engine.reset();

  const warnings: string[] = [];
  await engine.configureLazily(() => Promise.reject(new Error("no config")), {
    sink,
    warn: (m) => warnings.push(m),
  });
  const ctx = await engine.run("work_item_start", startCtx());
  assert.equal(ctx.proceed, true);
  assert.deepEqual(sink.ofType("hooks.load_failed").map((r) => [r.error, r.strict]), [[
    "no config",
    false,
  ]]);
  assert.match(warnings[0], /running without hooks: no config/);
  assert.ok(engine.configured() instanceof Runner);
  await engine.reset();
});

Deno.test("configureLazily waits until the runner it replaces is closed", async () => {
  const sink = new MemorySink();
  let closed = false;
  const old = fakeExecutor("old", () => ({ answer: null }));
  old.close = () =>
    new Promise<void>((r) =>
      setTimeout(() => {
        closed = true;
        r();
      }, 20)
    );
  engine.configure(new Runner({ entries: [{ entry: entryOf("old"), executor: old }], sink }));
  await engine.configureLazily(() => Promise.reject(new Error("unused")), { sink });
  assert.equal(closed, true, "the old runner's executors were still closing");
  await engine.reset();
});

Deno.test("a lazily loaded runner made stale meanwhile (configure, reset) is closed, not leaked", async () => {
  const sink = new MemorySink();
  for (const meanwhile of ["configure", "reset"] as const) {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const lazyEx = fakeExecutor("lazy", () => ({ answer: { reason: "lazy" } }));
    await engine.configureLazily(async () => {
      await gate;
      return new Runner({ entries: [{ entry: entryOf("lazy"), executor: lazyEx }], sink });
    }, { sink });
    const running = engine.run("work_item_start", startCtx());
    const other = fakeExecutor("other", () => ({ answer: { reason: "other" } }));
    if (meanwhile === "configure") {
      engine.configure(
        new Runner({ entries: [{ entry: entryOf("other"), executor: other }], sink }),
      );
    } else await engine.reset();
    release();
    await running;
    assert.equal(lazyEx.closed, 1, `${meanwhile}: the stale lazy runner was not closed`);
    const ctx = await engine.run("work_item_start", startCtx());
    assert.equal(ctx.reason, meanwhile === "configure" ? "other" : "", meanwhile);
    assert.deepEqual(lazyEx.calls, [], meanwhile);
    await engine.reset();
  }
});

/** Keeps the LoadedConfig type import honest when the config helper changes its face. */
export type _Loaded = LoadedConfig;

Deno.test("configuring again re-arms the circuits the previous runner had open", async () => {
  const loaded = await configWith(
    'hooks:\n  - name: flaky\n    command: ["./hooks/fail.sh"]\n',
    { "fail.sh": "#!/bin/sh\ncat >/dev/null\nexit 1\n" },
  );
  const { sink, warn, warnings } = setup();
  try {
    await engine.configureFromConfig(loaded, { strict: true, sink, env, warn });
    for (let i = 0; i < 6; i++) await engine.run("work_item_start", startCtx());
    assert.equal(sink.ofType("hooks.circuit_opened").length, 1);
    assert.equal(engine.configured()!.circuits()[0].state, "open");
    // not persisting (a one-shot command): nothing is written under state.root
    await assert.rejects(Deno.stat(`${loaded.config.state.root}/hooks/circuits`));
    await engine.configureFromConfig(loaded, { strict: true, sink, env, warn });
    const [closed] = sink.ofType("hooks.circuit_closed");
    assert.deepEqual([closed.hook, closed.after, closed.skipped], ["flaky", "reload", 1]);
    assert.equal(engine.configured()!.circuits()[0].state, "closed");
    assert.match(warnings.at(-1)!, /^hook "flaky": its circuit is closed again \(reload\)/);
  } finally {
    await engine.reset();
  }
});

Deno.test("handles: false only when the runner is known and no enabled hook handles the point", async () => {
  await engine.reset();
  assert.equal(engine.handles("input_received"), false, "nothing configured, nothing lazy");
  const sink = new MemorySink();
  const on = fakeExecutor("on", () => ({ answer: null }), { on: ["phase_changed"] });
  const off = fakeExecutor("off", () => ({ answer: null }));
  engine.configure(
    new Runner({
      entries: [
        { entry: entryOf("on"), executor: on },
        { entry: entryOf("off", { enabled: false }), executor: off },
      ],
      sink,
    }),
  );
  assert.equal(engine.handles("phase_changed"), true);
  assert.equal(engine.handles("input_received"), false, "the hook for it is disabled");
  await engine.configureLazily(() => Promise.resolve(new Runner({ entries: [], sink })), { sink });
  assert.equal(engine.handles("input_received"), true, "a lazy load not yet run may handle it");
  await engine.reset();
});

Deno.test("a real config's suspend hook parks through run(); run(…, {resume}) goes on past it", async () => {
  const loaded = await configWith(
    'hooks:\n  - name: gate\n    command: ["./hooks/fail.sh"]\n    onError: suspend\n' +
      '  - name: roster\n    command: ["./hooks/refuse.sh"]\n',
    { "fail.sh": "#!/bin/sh\ncat >/dev/null\necho 'gate down' >&2\nexit 1\n", "refuse.sh": REFUSE },
  );
  const s = setup();
  await engine.configureFromConfig(loaded, { strict: true, sink: s.sink, warn: s.warn, env });
  try {
    const parked = await engine.run("work_item_start", startCtx());
    assert.deepEqual(
      [suspensionOf(parked)?.hook, suspensionOf(parked)?.mode, parked.proceed],
      ["gate", "wait_for_resume", true],
      "parked at gate; roster (which would refuse) not called",
    );
    const resumed = await engine.run("work_item_start", startCtx(), {
      resume: { hook: "gate", rerun: false },
    });
    assert.equal(suspensionOf(resumed), undefined);
    assert.deepEqual([resumed.proceed, resumed.reason], [false, "not on the roster"]);
    assert.deepEqual(s.sink.ofType("hooks.ran").map((r) => r.hook), ["gate", "roster"]);
  } finally {
    await engine.reset();
  }
});
