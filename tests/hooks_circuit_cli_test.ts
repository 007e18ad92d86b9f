/**
 * A hook's circuit as the CLI shows it: a daemon-like process (the real engine, persisting its
 * circuits under `state.root`) opens two circuits — a required command hook that exits 1, and a
 * module hook whose worker keeps dying — then `the-loop hooks`,
 * `hooks validate` and `hooks reset` are run as the real CLI.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "../lifecycle/mod.ts";
import { CIRCUIT_POLICY } from "../lifecycle/mod.ts";
import { stopBundler } from "../lifecycle/mod.ts";
import { cli } from "./_test_utils.ts";
import { TAGGER, tree } from "./_test_utils.ts";
import { startCtx } from "./_test_utils.ts";

// Kills its worker from a listener Deno itself fires (see lifecycle/module/testdata/_dies_soon.ts),
// well after the load (a loaded machine must not make it die while loading: a strict load would
// then refuse it, which is not what this test is about)
const STORM = `const trap = () => {
  throw new Error("storm");
};
const traps = ["get", "getPrototypeOf", "has", "ownKeys", "getOwnPropertyDescriptor"];
AbortSignal.timeout(250).addEventListener("abort", () => {
  throw new Proxy({}, Object.fromEntries(traps.map((t) => [t, trap])));
});
export default {
  work_item_start(): Promise<never> {
    return new Promise(() => {});
  },
};
`;

const CONFIG = `state:
  root: ./state
hooks:
  - name: gate
    command: [./hooks/fail.sh]
    required: true
  - name: storm
    path: hooks/storm.ts
  - name: tagger
    path: hooks/tagger.ts
`;

/** Opens the circuits the way a daemon would: the engine, persisting, called until they open. */
async function runDaemonish(cwd: string, sink: MemorySink): Promise<void> {
  const env = (n: string) => (n === "HOME" ? cwd : Deno.env.get(n));
  const loaded = await loadConfig({ flag: join(cwd, "cli-config.yaml"), env, cwd });
  await engine.configureFromConfig(loaded, {
    strict: true,
    sink,
    env,
    warn: () => {},
    persistCircuits: true,
  });
  for (let i = 0; i < CIRCUIT_POLICY.failures; i++) await engine.run("work_item_start", startCtx());
}

Deno.test("hooks, hooks validate and hooks reset show and re-arm an open circuit", async () => {
  const cwd = tree({
    "cli-config.yaml": CONFIG,
    "hooks/fail.sh": ["#!/bin/sh\ncat >/dev/null\necho 'roster down' >&2\nexit 1\n", 0o755],
    "hooks/storm.ts": STORM,
    "hooks/tagger.ts": TAGGER,
  });
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml" };
  const sink = new MemorySink({ strict: true });
  try {
    await runDaemonish(cwd, sink);
    assert.deepEqual(sink.ofType("hooks.circuit_opened").map((r) => r.hook), ["gate", "storm"]);

    const text = await cli(["hooks"], { cwd, env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(
        `\\n {2}circuit +OPEN since \\S+ \\(pid ${Deno.pid}\\) after 5 failures in a row ` +
          `\\(last: .*\\); its calls are skipped; it is required, so the operations it decides ` +
          `are refused; one probe call is let through after \\S+; 'the-loop hooks reset gate' ` +
          `re-arms it now\\n`,
      ),
    );
    assert.match(text.stdout, /storm \(module\)\n[\s\S]*?circuit +OPEN since /);
    assert.match(text.stdout, /tagger \(module\)\n[\s\S]*?circuit +closed\n/);
    const json = JSON.parse((await cli(["hooks", "--format", "json"], { cwd, env })).stdout);
    const [gate, storm, tagger] = json.hooks;
    assert.deepEqual(
      [gate.circuit.state, gate.circuit.failures, gate.circuit.required, gate.circuit.pid_running],
      ["open", 5, true, true],
    );
    assert.match(gate.circuit.last_error, /exit/);
    assert.equal(gate.circuit.file, join(cwd, "state/hooks/circuits/gate.json"));
    assert.equal(storm.circuit.state, "open");
    assert.deepEqual(tagger.circuit, { state: "closed" });

    // validate: the storm is seen on its own (a problem); the daemon's open circuits are shown
    const v = await cli(["hooks", "validate"], { cwd, env });
    assert.equal(v.code, 1, v.stdout);
    const lines = v.stdout.split("\n");
    // each hook's lines come when it is done (not in declaration order): found by their first line
    const at = (re: RegExp) => {
      const i = lines.findIndex((l) => re.test(l));
      assert.ok(i >= 0, `no line matches ${re}:\n${v.stdout}`);
      return i;
    };
    const gateAt = at(/^ok {4}gate \(command\): /);
    assert.match(
      lines[gateAt + 1],
      /^ {6}circuit OPEN since .*'the-loop hooks reset gate' re-arms it now$/,
    );
    const stormAt = at(/^FAIL {2}storm \(module\): 1 problem\(s\), below \[\d+ ms\]$/);
    assert.match(lines[stormAt + 1], /^ {6}circuit OPEN since /);
    const taggerAt = at(/^ok {4}tagger \(module\): /);
    assert.ok(!/^ {6}circuit/.test(lines[taggerAt + 1] ?? ""), "tagger's circuit is closed");
    assert.match(
      v.stderr,
      /hooks\[1\]: hook "storm": its worker died on its own \d+ times? within 300 ms of loading \(last: Uncaught Error: storm\): an error thrown from a timer/,
    );
    const vj = JSON.parse(
      (await cli(["hooks", "validate", "--format", "json"], { cwd, env })).stdout,
    );
    assert.deepEqual(vj.hooks.map((h: { circuit: { state: string } }) => h.circuit.state), [
      "open",
      "open",
      "closed",
    ]);

    // reset: the file goes; a second reset has nothing to do; a typo is a usage error
    const reset = await cli(["hooks", "reset", "gate"], { cwd, env });
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(
      reset.stdout,
      /^hook gate: circuit re-armed \(it was open since \S+ after 5 failures; last: .*\)\. The daemon lets its next call through as a probe: if it works the circuit closes, if not it opens again\n$/,
    );
    const again = await cli(["hooks", "reset", "gate", "--format", "json"], { cwd, env });
    assert.deepEqual(JSON.parse(again.stdout), {
      hook: "gate",
      reset: false,
      was: { state: "closed" },
    });
    const typo = await cli(["hooks", "reset", "gatr"], { cwd, env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /no hook named "gatr" in .*cli-config\.yaml \(did you mean gate\?\)/);
    const after = JSON.parse((await cli(["hooks", "--format", "json"], { cwd, env })).stdout);
    assert.deepEqual(after.hooks[0].circuit, { state: "closed" });

    // a reload re-arms what is still recorded open (storm), with one event
    await engine.reset();
    await runDaemonish(cwd, sink);
    const closed = sink.ofType("hooks.circuit_closed");
    assert.deepEqual(closed.map((r) => [r.hook, r.after]), [["storm", "reload"]]);
  } finally {
    await engine.reset();
    await stopBundler();
    await Deno.remove(cwd, { recursive: true });
  }
});
