import assert from "node:assert/strict";
import { HookFailure } from "../../executor.ts";
import { CommandHookFailure, createCommandExecutor } from "./mod.ts";
import { fixture, fixturesExecutable, TESTDATA } from "./_test_utils.ts";

await fixturesExecutable();

const PARAMS = { work_item: { ref: "github:acme/app#42", number: 42 }, proceed: true };
const T = { timeoutMs: 10_000 };

Deno.test("command: empty stdout passes; telemetry carries the exit code", async () => {
  const r = await fixture("pass.sh").call("work_item_start", PARAMS, T);
  assert.equal(r.answer, null);
  assert.equal(r.refused, undefined);
  assert.deepEqual(r.telemetry, {
    exit_code: 0,
    stdout: "",
    stderr: "",
    stdout_truncated: false,
    stderr_truncated: false,
  });
});

Deno.test("command: a JSON object on stdout is the answer", async () => {
  const r = await fixture("decide.sh").call("session_spawn", PARAMS, T);
  assert.deepEqual(r.answer, { proceed: false, reason: "not today" });
});

Deno.test("command: stdin carries {point, context}", async () => {
  const r = await fixture("echo_stdin.sh").call("phase_changed", PARAMS, T);
  assert.deepEqual(r.answer, { point: "phase_changed", context: PARAMS });
});

Deno.test("command: exit 2 refuses with stderr trimmed, or a default reason", async () => {
  const r = await fixture("refuse.sh").call("work_item_start", PARAMS, T);
  assert.deepEqual(r.refused, { reason: "not on a Friday" });
  assert.equal(r.answer, null);
  assert.equal(r.telemetry?.exit_code, 2);
  const s = await fixture("refuse_silent.sh").call("work_item_start", PARAMS, T);
  assert.deepEqual(s.refused, { reason: 'refused by hook "fx"' });
});

Deno.test("command: exit 1 fails with the code and the stderr tail, telemetry attached", async () => {
  await assert.rejects(fixture("crash.sh").call("work_item_start", PARAMS, T), (e: unknown) => {
    assert.ok(e instanceof CommandHookFailure && e instanceof HookFailure);
    assert.match(
      e.message,
      /hook "fx" \(\.\/crash\.sh\): exited with code 1: boom: the database is gone/,
    );
    assert.equal(e.telemetry.exit_code, 1);
    assert.equal(e.telemetry.stderr, "boom: the database is gone\n");
    return true;
  });
});

Deno.test("command: death by a signal fails naming it", async () => {
  await assert.rejects(
    fixture("killed.sh").call("work_item_start", PARAMS, T),
    /killed by SIGKILL \(exit code 137\)/,
  );
});

Deno.test("command: stdout that is not a JSON object fails", async () => {
  for (const script of ["not_json.sh", "array.sh"]) {
    await assert.rejects(fixture(script).call("work_item_start", PARAMS, T), (e: unknown) => {
      assert.ok(e instanceof CommandHookFailure);
      assert.match(e.message, /stdout is not a JSON object/);
      assert.equal(e.telemetry.exit_code, 0);
      return true;
    });
  }
});

Deno.test("command: the environment is minimal: PATH, HOME, THE_LOOP_* (with the call id), and the listed names", async () => {
  const vars: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    HOME: "/home/op",
    GH_TOKEN: "t0k",
    SECRET: "s3",
  };
  const r = await fixture("environ.sh", [], {
    passEnv: ["GH_TOKEN", "UNSET_ONE"],
    env: (n) => vars[n],
  })
    .call("session_spawned", PARAMS, T);
  const env = Object.fromEntries(r.refused!.reason.split("\n").map((l) => l.split(/=(.*)/s, 2)));
  // a fresh random id per call: how the-loop finds the call's processes when it kills them
  assert.match(env.THE_LOOP_CALL_ID, /^[0-9a-f]{32}$/);
  delete env.THE_LOOP_CALL_ID;
  assert.deepEqual(env, {
    PATH: "/usr/bin:/bin",
    HOME: "/home/op",
    GH_TOKEN: "t0k",
    THE_LOOP_POINT: "session_spawned",
    THE_LOOP_HOOK: "fx",
    THE_LOOP_WORK_ITEM: "github:acme/app#42",
  });
});

Deno.test("command: THE_LOOP_WORK_ITEM takes a bare ref string, or a custom workItemRef", async () => {
  const env = async (ex: ReturnType<typeof fixture>, params: Record<string, unknown>) => {
    const r = await ex.call("work_item_start", params, T);
    return r.refused!.reason.split("\n").find((l) => l.startsWith("THE_LOOP_WORK_ITEM="));
  };
  assert.equal(
    await env(fixture("environ.sh"), { work_item: "issue-7" }),
    "THE_LOOP_WORK_ITEM=issue-7",
  );
  assert.equal(await env(fixture("environ.sh"), {}), "THE_LOOP_WORK_ITEM=");
  const custom = fixture("environ.sh", [], { workItemRef: () => "github:x/y#1" });
  assert.equal(await env(custom, PARAMS), "THE_LOOP_WORK_ITEM=github:x/y#1");
});

Deno.test("command: arguments arrive literally, with no shell in between", async () => {
  const args = ["$(rm -rf /tmp/nothing)", "a; echo pwned", "`id`", "*", "with space", "$HOME", ""];
  const r = await fixture("argv.sh", args).call("work_item_start", PARAMS, T);
  assert.equal(r.telemetry?.stderr, args.map((a) => `${a}\n`).join(""));
});

Deno.test("command: a relative program resolves against cwd (the config dir), a bare name via PATH", async () => {
  // The test process runs elsewhere; only cwd makes ./decide.sh findable.
  assert.notEqual(Deno.cwd() + "/", TESTDATA);
  const rel = createCommandExecutor({ name: "rel", argv: ["./decide.sh"], cwd: TESTDATA });
  assert.deepEqual((await rel.call("work_item_start", PARAMS, T)).answer, {
    proceed: false,
    reason: "not today",
  });
  const bare = createCommandExecutor({ name: "bare", argv: ["true"], cwd: TESTDATA });
  assert.equal((await bare.call("work_item_start", PARAMS, T)).answer, null);
});

Deno.test("command: check() accepts an executable, rejects missing and non-executable programs", async () => {
  assert.match((await fixture("pass.sh").check()).program, /testdata\/pass\.sh$/);
  assert.equal(
    (await createCommandExecutor({ name: "sh", argv: ["sh"], cwd: TESTDATA }).check()).program
      .endsWith("/sh"),
    true,
  );
  await assert.rejects(
    fixture("missing.sh").check(),
    /hook "fx": command .*missing\.sh does not exist \(\.\/missing\.sh is resolved against/,
  );
  await assert.rejects(
    createCommandExecutor({
      name: "nf",
      argv: ["no-such-prog-xyz"],
      cwd: TESTDATA,
      env: (n) => n === "PATH" ? "/usr/bin" : undefined,
    }).check(),
    (e: unknown) =>
      e instanceof HookFailure &&
      /no-such-prog-xyz was not found on PATH \(\/usr\/bin\)/.test(e.message),
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/plain.sh`, "#!/bin/sh\n");
    await Deno.chmod(`${dir}/plain.sh`, 0o644);
    const ex = createCommandExecutor({ name: "np", argv: ["./plain.sh"], cwd: dir });
    await assert.rejects(ex.check(), /plain\.sh is not executable/);
    await assert.rejects(ex.call("work_item_start", PARAMS, T), /plain\.sh is not executable/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("command: a hook that never reads a large stdin still answers", async () => {
  const big = { ...PARAMS, blob: "z".repeat(1 << 20) };
  const r = await fixture("ignore_stdin.sh").call("work_item_start", big, T);
  assert.equal(r.answer, null);
});

Deno.test("command: handles() follows `on`; an empty argv is refused at creation", () => {
  const ex = fixture("pass.sh", [], { on: ["work_item_complete"] });
  assert.equal(ex.kind, "command");
  assert.ok(ex.handles("work_item_complete"));
  assert.ok(!ex.handles("work_item_start"));
  assert.ok(fixture("pass.sh").handles("input_received"));
  assert.throws(
    () => createCommandExecutor({ name: "e", argv: [], cwd: TESTDATA }),
    /hook "e": command is empty/,
  );
});
