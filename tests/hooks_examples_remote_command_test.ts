/**
 * The out-of-process examples of `hooks-examples/`: `remote_server.ts` started as a real
 * subprocess on a free loopback port and called as a `url:` hook, and `audit_command.py` run
 * as a `command:` hook, both through the real engine and runner.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { makeContext } from "../lifecycle/sdk/mod.ts";
import { baseEnv } from "./_test_utils.ts";
import { example, ran, withHooks } from "./_test_utils.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TOKEN = "tl-example-token-8c2d41f0";
const WRONG = "tl-wrong-token-5e7a9b13";
const GH_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

const start = (ref: string) =>
  makeContext("work_item_start", {
    work_item: ref as never,
    loop: "pdlc",
    command: "start",
    actor: "alice",
    harness: "claude",
    instance: "",
  });

const input = (o: { kind: string; actor: string; command?: string; text?: string }) =>
  makeContext("input_received", {
    work_item: "github:acme/app#42" as never,
    endpoint: "github:acme/app#42" as never,
    kind: o.kind,
    actor: o.actor,
    source: "comment",
    command: o.command ?? "",
    event: "issue_comment",
    loop: "pdlc",
    text: o.text ?? "",
  });

/** Starts the example server on a free port; resolves once it printed its ready line. */
async function startServer() {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--no-prompt",
      "--allow-net",
      "--allow-env",
      example("remote_server.ts"),
      "--port",
      "0",
      "--deny",
      "acme/secret",
    ],
    cwd: ROOT,
    env: { ...baseEnv(ROOT), HOOKS_TOKEN: TOKEN, HOOKS_DENY_REPOS: "acme/legal" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const bound = setTimeout(() => child.kill("SIGKILL"), 30_000); // only a hung start trips it
  try {
    while (!/listening on (\S+)\n/.test(seen)) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`remote_server exited before it was ready: ${await stderr}`);
      seen += value;
    }
  } finally {
    clearTimeout(bound);
  }
  const url = seen.match(/listening on (\S+)\n/)![1];
  const stop = async () => {
    child.kill("SIGTERM");
    await lines.cancel();
    const status = await child.status;
    return { status, stderr: await stderr };
  };
  return { url, stop };
}

const remoteYaml = (url: string) => () =>
  `  - name: compliance
    url: ${url}
    tokenEnv: TL_EXAMPLE_TOKEN
    required: true
`;

Deno.test("remote_server refuses denied repos and masks GitHub tokens in input", async () => {
  const server = await startServer();
  try {
    const env = { TL_EXAMPLE_TOKEN: TOKEN };
    await withHooks(remoteYaml(server.url), { env }, async ({ runner, sink, warnings }) => {
      for (const repo of ["acme/secret", "acme/legal"]) {
        const ctx = await runner.run("work_item_start", start(`github:${repo}#1`));
        assert.equal(ctx.proceed, false, repo);
        assert.equal(ctx.reason, `${repo} is under a compliance hold: the-loop may not work on it`);
      }
      const ok = await runner.run("work_item_start", start("github:acme/app#42"));
      assert.equal(ok.proceed, true);
      const comment = await runner.run(
        "input_received",
        input({ kind: "comment", actor: "alice", text: `use ${GH_TOKEN} to push` }),
      );
      assert.equal(comment.text, "use [token removed by compliance] to push");
      assert.deepEqual(ran(sink), [
        ["compliance", "refused", ["proceed", "reason"]],
        ["compliance", "refused", ["proceed", "reason"]],
        ["compliance", "passed", []],
        ["compliance", "decided", ["text"]],
      ]);
      assert.ok(sink.ofType("hooks.ran").every((r) => r.kind === "remote"));
      assert.deepEqual(warnings, []);
    });
  } finally {
    const { status, stderr } = await server.stop();
    assert.ok(!stderr.includes(TOKEN), "the server printed its token");
    assert.equal(status.success, true, `remote_server did not stop cleanly: ${stderr}`);
  }
});

Deno.test("remote_server answers a wrong token with 401; the required hook refuses, secret-free", async () => {
  const server = await startServer();
  try {
    const env = { TL_EXAMPLE_TOKEN: WRONG };
    await withHooks(remoteYaml(server.url), { env }, async ({ runner, sink, warnings }) => {
      const ctx = await runner.run("work_item_start", start("github:acme/app#42"));
      assert.equal(ctx.proceed, false);
      assert.match(ctx.reason, /^required hook "compliance" failed: .*401/);
      assert.deepEqual(ran(sink), [["compliance", "failed", ["proceed", "reason"]]]);
      assert.match(String(sink.ofType("hooks.failed")[0].error), /401/);
      const everything = JSON.stringify(sink.records) + warnings.join("\n") + ctx.reason;
      for (const secret of [WRONG, TOKEN]) assert.ok(!everything.includes(secret));
    });
  } finally {
    await server.stop();
  }
});

const auditYaml = () =>
  `  - name: audit
    command: [python3, ${example("audit_command.py")}, --stoppers, "alice,bob"]
    env: [AUDIT_LOG]
    on: [work_item_start, input_received]
`;

Deno.test("audit_command logs every call and refuses a stop by someone not allowed", async () => {
  const log = await Deno.makeTempFile({ prefix: "audit-", suffix: ".jsonl" });
  try {
    await withHooks(auditYaml, { env: { AUDIT_LOG: log } }, async ({ runner, sink }) => {
      assert.equal(
        (await runner.run("work_item_start", start("github:acme/app#42"))).proceed,
        true,
      );
      const allowed = await runner.run(
        "input_received",
        input({ kind: "command", actor: "Bob", command: "stop" }),
      );
      assert.equal(allowed.proceed, true);
      const refused = await runner.run(
        "input_received",
        input({ kind: "command", actor: "mallory", command: "stop" }),
      );
      assert.equal(refused.proceed, false);
      assert.equal(refused.reason, "@mallory may not stop the loop; ask one of: alice, bob");
      const other = await runner.run(
        "input_received",
        input({ kind: "comment", actor: "mallory", text: "hi" }),
      );
      assert.equal(other.proceed, true);
      assert.deepEqual(ran(sink), [
        ["audit", "passed", []],
        ["audit", "passed", []],
        ["audit", "refused", ["proceed", "reason"]],
        ["audit", "passed", []],
      ]);
      assert.deepEqual(sink.ofType("hooks.ran").map((r) => r.exit_code), [0, 0, 2, 0]);
      assert.ok(sink.ofType("hooks.ran").every((r) => r.kind === "command"));
    });
    const lines = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.point, l.actor, l.command, l.work_item]),
      [
        ["work_item_start", "alice", "start", "github:acme/app#42"],
        ["input_received", "Bob", "stop", "github:acme/app#42"],
        ["input_received", "mallory", "stop", "github:acme/app#42"],
        ["input_received", "mallory", "", "github:acme/app#42"],
      ],
    );
  } finally {
    await Deno.remove(log);
  }
});

Deno.test("audit_command without AUDIT_LOG fails (exit 1) and says what to set", async () => {
  await withHooks(auditYaml, {}, async ({ runner, sink }) => {
    const ctx = await runner.run("input_received", input({ kind: "comment", actor: "a" }));
    assert.equal(ctx.proceed, true, "an optional hook's failure does not refuse");
    assert.deepEqual(ran(sink), [["audit", "failed", []]]);
    const [r] = sink.ofType("hooks.ran");
    assert.equal(r.exit_code, 1);
    assert.match(String(r.stderr), /AUDIT_LOG is not set; pass it with env: \[AUDIT_LOG\]/);
  });
});
