/**
 * `the-loop hooks test`: one hook of each kind run for real (a worker, a program, a loopback
 * server) against a sample context, with `--expect`, failures and the usage errors.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_test_utils.ts";
import { remoteServer, SPAWN_CONTEXT, START_CONTEXT, TAGGER, tree } from "./_test_utils.ts";

const TOKEN = "hooks-test-token-81d2aa";

const REFUSE_SH = `#!/bin/sh
cat >/dev/null
echo "no starts on $THE_LOOP_WORK_ITEM today" >&2
exit 2
`;
const DECIDE_SH = `#!/bin/sh
cat >/dev/null
printf '{"notify": false}\\n'
`;
const SLOW_SH = "#!/bin/sh\ncat >/dev/null\nexec sleep 30\n";
const THROWS = `import { LifecycleHooks } from "@the-loop/hooks";
export default class Boom extends LifecycleHooks {
  override session_spawn(): never { throw new Error("kaboom in the hook"); }
}
`;

function project(extra: string, files: Record<string, string | [string, number]> = {}) {
  return tree({
    "cli-config.yaml": `eventLog: { path: events.jsonl }
hooks:
  - name: tagger
    path: hooks/tagger.ts
    with: { tag: T }
  - name: refuse
    command: [./hooks/refuse.sh]
  - name: decide
    command: [./hooks/decide.sh]
  - name: slow
    command: [./hooks/slow.sh]
    timeoutSeconds: 0.5
  - name: boom
    path: hooks/boom.ts
  - name: resting
    path: hooks/tagger.ts
    enabled: false
  - name: broken
    path: hooks/broken.ts
${extra}`,
    "hooks/tagger.ts": TAGGER,
    "hooks/boom.ts": THROWS,
    "hooks/broken.ts": "export default class {\n  session_spawn( {\n}\n",
    "hooks/refuse.sh": [REFUSE_SH, 0o755],
    "hooks/decide.sh": [DECIDE_SH, 0o755],
    "hooks/slow.sh": [SLOW_SH, 0o755],
    "spawn.json": JSON.stringify(SPAWN_CONTEXT),
    "start.json": JSON.stringify(START_CONTEXT),
    "phase.json": JSON.stringify({
      work_item: "github:acme/app#42",
      loop: "l",
      from_node: "a",
      to_node: "b",
      from_phase: "x",
      to_phase: "y",
      outcome: "pass",
      actor: "agent",
      terminal: false,
    }),
    ...files,
  });
}

const ENV = { THE_LOOP_CLI_CONFIG: "cli-config.yaml" };

Deno.test("hooks test: a module hook's decisions, telemetry, event log and --expect", async () => {
  const cwd = project("", {
    "good.json": JSON.stringify({ prompt: "[T] Implement issue #42.", proceed: true }),
    "bad.json": JSON.stringify({ prompt: "something else", reason: "" }),
  });
  const args = ["hooks", "test", "tagger", "--point", "session_spawn", "--context", "spawn.json"];
  // the telemetry is shown with --verbose only
  const r = await cli([...args, "--verbose"], { cwd, env: ENV });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[0], /^hook tagger \(module\) at session_spawn: decided in \d+(?:\.\d+)? ms$/);
  assert.equal(lines[1], "changed:");
  assert.equal(lines[2], '  prompt: "Implement issue #42." → "[T] Implement issue #42."');
  assert.equal(lines[3], "decisions after the call:");
  assert.deepEqual(lines.slice(4, 7), [
    '  prompt:  "[T] Implement issue #42."',
    "  proceed: true",
    '  reason:  ""',
  ]);
  assert.equal(lines[7], "telemetry (hooks.ran):");
  const ran = JSON.parse(lines[8]);
  assert.deepEqual([ran.event, ran.hook, ran.kind, ran.disposition, ran.changed, ran.work_item], [
    "hooks.ran",
    "tagger",
    "module",
    "decided",
    ["prompt"],
    "github:acme/app#42",
  ]);
  const log = Deno.readTextFileSync(join(cwd, "events.jsonl")).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  assert.deepEqual(log.map((e) => [e.event, e.source, e.hook]), [
    ["hooks.decided", "cli", "tagger"],
    ["hooks.ran", "cli", "tagger"],
  ]);

  const pass = await cli([...args, "--expect", "good.json"], { cwd, env: ENV });
  assert.equal(pass.code, 0, pass.stderr);
  assert.ok(!pass.stdout.includes("telemetry"), pass.stdout);
  assert.match(pass.stdout, /\nexpect: ok \(2 decisions as expected\)\n$/);

  const fail = await cli([...args, "--expect", "bad.json"], { cwd, env: ENV });
  assert.equal(fail.code, 1);
  assert.match(
    fail.stdout,
    /\nexpect: 1 of 2 expected decisions differs:\n {2}- prompt: "something else" {3}\(expected\)\n {2}\+ prompt: "\[T\] Implement issue #42\." {3}\(actual\)\n$/,
  );
  assert.match(
    fail.stderr,
    /hooks test: hook tagger at session_spawn: prompt differs from --expect bad\.json/,
  );

  const json = await cli([...args, "--expect", "bad.json", "--format", "json"], { cwd, env: ENV });
  assert.equal(json.code, 1);
  const out = JSON.parse(json.stdout);
  assert.equal(out.ok, false);
  assert.deepEqual(out.changed, {
    prompt: { before: "Implement issue #42.", after: "[T] Implement issue #42." },
  });
  assert.deepEqual(out.decisions, {
    prompt: "[T] Implement issue #42.",
    proceed: true,
    reason: "",
  });
  assert.deepEqual(out.expect.mismatches, [
    { field: "prompt", expected: "something else", actual: "[T] Implement issue #42." },
  ]);
  assert.equal(out.telemetry.event, "hooks.ran");
  assert.deepEqual(out.events.map((e: { event: string }) => e.event), [
    "hooks.decided",
    "hooks.ran",
  ]);
});

Deno.test("hooks test: command hooks refuse (exit 2) and decide; stdin context", async () => {
  const cwd = project("");
  const refuse = await cli(
    ["hooks", "test", "refuse", "--point", "work_item_start", "--context", "-", "--format", "json"],
    { cwd, env: ENV, stdin: JSON.stringify({ ...START_CONTEXT, work_item: "github:acme/app#7" }) },
  );
  assert.equal(refuse.code, 0, refuse.stderr); // a refusal is an answer, not a failure
  const out = JSON.parse(refuse.stdout);
  assert.equal(out.disposition, "refused");
  assert.deepEqual(out.decisions, {
    proceed: false,
    reason: "no starts on github:acme/app#7 today",
  });
  assert.deepEqual([out.telemetry.exit_code, out.telemetry.kind], [2, "command"]);
  assert.deepEqual(out.events.map((e: { event: string }) => e.event), [
    "hooks.decided",
    "hooks.refused",
    "hooks.ran",
  ]);

  const decide = await cli(
    ["hooks", "test", "decide", "--point", "phase_changed", "--context", "phase.json", "--verbose"],
    { cwd, env: ENV },
  );
  assert.equal(decide.code, 0, decide.stderr);
  assert.match(decide.stdout, /^hook decide \(command\) at phase_changed: decided in/);
  assert.match(decide.stdout, /\n {2}notify: true → false\n/);
  assert.match(decide.stdout, /"exit_code":0,"stdout":"\{\\"notify\\": false\}\\n"/);
});

Deno.test("hooks test: a remote hook gets its bearer token, which no output shows", async () => {
  Deno.env.set("HOOKS_TEST_SERVER_TOKEN", TOKEN);
  const server = remoteServer({ tokenEnv: "HOOKS_TEST_SERVER_TOKEN" });
  try {
    const cwd = project(
      `  - name: far
    url: ${server.url}
    tokenEnv: FAR_TOKEN
    on: [session_spawn, work_item_start]
`,
      { "mallory.json": JSON.stringify({ ...START_CONTEXT, actor: "mallory" }) },
    );
    const env = { ...ENV, FAR_TOKEN: TOKEN };
    const r = await cli(
      ["hooks", "test", "far", "--point", "session_spawn", "--context", "spawn.json"],
      { cwd, env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^hook far \(remote\) at session_spawn: decided in/);
    assert.match(r.stdout, /prompt: "Implement issue #42\." → "remote: Implement issue #42\."/);

    const refused = await cli(
      [
        "hooks",
        "test",
        "far",
        "--point",
        "work_item_start",
        "--context",
        "mallory.json",
        "--format",
        "json",
      ],
      { cwd, env },
    );
    assert.equal(refused.code, 0, refused.stderr);
    assert.deepEqual(JSON.parse(refused.stdout).decisions, {
      proceed: false,
      reason: "remote says no",
    });

    const wrong = await cli(
      ["hooks", "test", "far", "--point", "session_spawn", "--context", "spawn.json"],
      { cwd, env: { ...env, FAR_TOKEN: "not-the-token" } },
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.stdout, /: failed in \d+(?:\.\d+)? ms/);
    assert.match(wrong.stderr, /hooks test: hook far failed at session_spawn: .*HTTP 401/);
    for (const x of [r, refused, wrong]) {
      assert.ok(!x.stdout.includes(TOKEN) && !x.stderr.includes(TOKEN));
    }
    const log = Deno.readTextFileSync(join(cwd, "events.jsonl"));
    assert.ok(!log.includes(TOKEN) && !log.includes("not-the-token"));
  } finally {
    await server.close();
    Deno.env.delete("HOOKS_TEST_SERVER_TOKEN");
  }
});

Deno.test("hooks test: a hook that throws or times out exits 1", async () => {
  const cwd = project("");
  const boom = await cli(
    ["hooks", "test", "boom", "--point", "session_spawn", "--context", "spawn.json"],
    { cwd, env: ENV },
  );
  assert.equal(boom.code, 1);
  assert.match(
    boom.stdout,
    /^hook boom \(module\) at session_spawn: failed in \d+(?:\.\d+)? ms\nchanged: nothing\n/,
  );
  // The failure is said once, in one line, and no telemetry is shown: the stack and the
  // hooks.ran record are in hooks.failed and shown with --verbose.
  assert.match(
    boom.stderr,
    /^the-loop: hooks test: hook boom failed at session_spawn: Error: kaboom in the hook\n$/,
  );
  assert.ok(!boom.stdout.includes("telemetry") && !boom.stdout.includes("{"), boom.stdout);
  const verbose = await cli(
    ["hooks", "test", "boom", "--point", "session_spawn", "--context", "spawn.json", "--verbose"],
    { cwd, env: ENV },
  );
  assert.equal(verbose.code, 1);
  assert.match(verbose.stderr, /at Boom\.session_spawn .*boom\.ts:3:\d+/);
  assert.match(verbose.stdout, /\ntelemetry \(hooks\.ran\):\n {2}\{"ts":/);

  const slow = await cli(
    [
      "hooks",
      "test",
      "slow",
      "--point",
      "work_item_start",
      "--context",
      "start.json",
      "--format",
      "json",
    ],
    { cwd, env: ENV },
  );
  assert.equal(slow.code, 1);
  const out = JSON.parse(slow.stdout);
  assert.deepEqual([out.ok, out.disposition], [false, "timed_out"]);
  assert.match(slow.stderr, /hooks test: hook slow timed out at work_item_start/);
});

Deno.test("hooks test: usage and input errors name what is wrong", async () => {
  const cwd = project("", {
    "missing.json": JSON.stringify({ ...SPAWN_CONTEXT, cwd: undefined }),
    "badref.json": JSON.stringify({ ...SPAWN_CONTEXT, work_item: "not a ref" }),
    "notjson.json": "{ nope",
    "fact.json": JSON.stringify({ harness: "cursor" }),
  });
  const run = (...args: string[]) => cli(["hooks", "test", ...args], { cwd, env: ENV });

  const point = await run("tagger", "--point", "session_spawnn", "--context", "spawn.json");
  assert.equal(point.code, 2);
  assert.match(
    point.stderr,
    /--point: "session_spawnn" is not a lifecycle point \(did you mean session_spawn\?\)/,
  );

  const unknown = await run("nobody", "--point", "session_spawn", "--context", "spawn.json");
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /no hook named "nobody" in .*cli-config\.yaml; declared: tagger, refuse, decide, slow, boom, resting, broken/,
  );

  const typo = await run("taggr", "--point", "session_spawn", "--context", "spawn.json");
  assert.equal(typo.code, 1);
  assert.match(
    typo.stderr,
    /no hook named "taggr" in .*cli-config\.yaml \(did you mean tagger\?\); declared: /,
  );

  const missing = await run("tagger", "--point", "session_spawn", "--context", "missing.json");
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /--context missing\.json \(field "cwd"\): session_spawn: fact "cwd" is missing/,
  );
  const badref = await run("tagger", "--point", "session_spawn", "--context", "badref.json");
  assert.match(badref.stderr, /--context badref\.json \(field "work_item"\)/);
  const notjson = await run("tagger", "--point", "session_spawn", "--context", "notjson.json");
  assert.match(notjson.stderr, /--context notjson\.json: not valid JSON/);
  const fact = await run(
    "tagger",
    "--point",
    "session_spawn",
    "--context",
    "spawn.json",
    "--expect",
    "fact.json",
  );
  assert.equal(fact.code, 1);
  assert.match(
    fact.stderr,
    /--expect fact\.json: "harness" is not a decision of session_spawn \(decisions: prompt, proceed, reason\)/,
  );
  const notAt = await run("refuse", "--point", "work_item_start", "--context", "spawn.json");
  assert.match(notAt.stderr, /--context spawn\.json \(field "endpoint"\)/);
  const noPoint = await run("tagger", "--point", "phase_changed", "--context", "phase.json");
  assert.equal(noPoint.code, 1);
  assert.match(
    noPoint.stderr,
    /hook "tagger" is not called at phase_changed: it handles work_item_start, session_spawn/,
  );
  const noFlag = await run("tagger", "--context", "spawn.json");
  assert.equal(noFlag.code, 2);

  const broken = await run("broken", "--point", "session_spawn", "--context", "spawn.json");
  assert.equal(broken.code, 1);
  assert.match(
    broken.stderr,
    /^hook "broken" could not be loaded:\n {2}\S+cli-config\.yaml:\d+:5: hooks\[6\]: hook "broken": \S+broken\.ts:\d+:\d+: /,
  );

  const resting = await run("resting", "--point", "session_spawn", "--context", "spawn.json");
  assert.equal(resting.code, 0, resting.stderr);
  assert.match(resting.stderr, /note: hook resting is disabled \(enabled: false\)/);
  assert.match(resting.stdout, /^hook resting \(module\) at session_spawn: decided/);
});
