/**
 * The hook engine end to end: a real cli-config.yaml read by the real config loader, a real
 * command hook, a real module hook in its worker and a real remote on loopback, chained by the
 * process-wide seam.
 *
 * @module
 */
import assert from "node:assert/strict";
import { loadConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "../lifecycle/engine.ts";
import { makeContext } from "../lifecycle/contract.ts";

const TOKEN = "tl-test-bearer-4f1e9a7c";
const HEADER = "platform-header-value-77";

const STAMP = `#!/bin/sh
cat >/dev/null
printf '{"reason": "stamped"}\\n'
`;
const SLOW = `#!/bin/sh
cat >/dev/null
exec sleep 30
`;
const POLICY = `import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
export class Policy extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    return { reason: ctx.reason + "|" + String(this.options.board) };
  }
}
`;

/** A JSON-RPC endpoint on loopback that refuses with an error echoing the request's secrets. */
function echoingServer() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    const message = `denied: ${req.headers.get("authorization")} team=${req.headers.get("x-team")}`;
    return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32000, message } });
  });
}

async function writeConfig(port: number): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "lifecycle-e2e-" });
  await Deno.mkdir(`${dir}/hooks`);
  await Deno.writeTextFile(`${dir}/hooks/stamp.sh`, STAMP, { mode: 0o755 });
  await Deno.writeTextFile(`${dir}/hooks/slow.sh`, SLOW, { mode: 0o755 });
  await Deno.writeTextFile(`${dir}/hooks/policy.ts`, POLICY);
  await Deno.writeTextFile(
    `${dir}/cli-config.yaml`,
    `hooks:
  - name: stamp
    command: ["./hooks/stamp.sh"]
    on: [work_item_start]
  - name: policy
    path: hooks/policy.ts
    with: {board: platform}
  - name: slow
    command: ["./hooks/slow.sh"]
    on: [work_item_start]
    timeoutSeconds: 0.5
  - name: compliance
    url: http://127.0.0.1:${port}/rpc
    tokenEnv: TL_TEST_TOKEN
    headers: {X-Team: ${HEADER}}
    required: true
`,
  );
  return dir;
}

Deno.test("real command, module and remote hooks chain through the seam; failures stay contained and secret-free", async () => {
  const server = echoingServer();
  const dir = await writeConfig(server.addr.port);
  const cwd = await Deno.makeTempDir({ prefix: "elsewhere-" });
  const env = (n: string) => (n === "TL_TEST_TOKEN" ? TOKEN : n === "HOME" ? cwd : Deno.env.get(n));
  const sink = new MemorySink({ strict: true });
  const warnings: string[] = [];
  try {
    const loaded = await loadConfig({ flag: `${dir}/cli-config.yaml`, env, cwd });
    await engine.configureFromConfig(loaded, {
      strict: true,
      sink,
      env,
      warn: (m) => warnings.push(m),
    });
    assert.deepEqual(sink.ofType("hooks.loaded")[0].names, [
      "stamp",
      "policy",
      "slow",
      "compliance",
    ]);

    const ctx = makeContext("work_item_start", {
      work_item: "github:acme/app#42" as never,
      loop: "pdlc",
      command: "start",
      actor: "mallory",
      harness: "claude",
      instance: "",
    });
    const out = await engine.run("work_item_start", ctx);
    assert.equal(out, ctx);

    const ran = sink.ofType("hooks.ran");
    assert.deepEqual(ran.map((r) => [r.hook, r.kind, r.disposition]), [
      ["stamp", "command", "decided"],
      ["policy", "module", "decided"],
      ["slow", "command", "timed_out"],
      ["compliance", "remote", "failed"],
    ]);
    assert.equal(ran[0].exit_code, 0);
    assert.ok(ran.every((r) => r.work_item === "github:acme/app#42"));
    // The module saw the command's answer (chaining), with its `with:` options.
    assert.match(ctx.reason, /^required hook compliance failed: /);
    assert.deepEqual(
      sink.ofType("hooks.decided").map((r) => [r.hook, r.changed]),
      [["stamp", ["reason"]], ["policy", ["reason"]], ["compliance", ["proceed", "reason"]]],
    );
    assert.equal(ctx.proceed, false, "the required remote failed at a proceed point");
    const [timedOut] = sink.ofType("hooks.timed_out");
    assert.deepEqual([timedOut.hook, timedOut.timeout_ms, timedOut.leaked], ["slow", 500, false]);
    assert.deepEqual(sink.ofType("hooks.refused").map((r) => r.hook), ["compliance"]);

    const everything = JSON.stringify(sink.records) + warnings.join("\n") + ctx.reason;
    assert.ok(!everything.includes(TOKEN), "the bearer token leaked");
    assert.ok(!everything.includes(HEADER), "a header value leaked");
    assert.match(String(sink.ofType("hooks.failed")[1].error), /denied/);
  } finally {
    await engine.reset();
    await server.shutdown();
  }
});

Deno.test("the module hook's answer is chained onto the command hook's", async () => {
  const server = echoingServer();
  const dir = await writeConfig(server.addr.port);
  const yaml = await Deno.readTextFile(`${dir}/cli-config.yaml`);
  await Deno.writeTextFile(
    `${dir}/cli-config.yaml`,
    yaml.replace("required: true", "enabled: false"),
  );
  const env = (n: string) => Deno.env.get(n);
  const sink = new MemorySink();
  try {
    const loaded = await loadConfig({ flag: `${dir}/cli-config.yaml`, env, cwd: dir });
    await engine.configureFromConfig(loaded, { strict: false, sink, env, warn: () => {} });
    const ctx = await engine.run(
      "work_item_start",
      makeContext("work_item_start", {
        work_item: "github:acme/app#42" as never,
        loop: "",
        command: "",
        actor: "a",
        harness: "claude",
        instance: "",
      }),
    );
    assert.equal(ctx.reason, "stamped|platform");
    assert.equal(ctx.proceed, true);
  } finally {
    await engine.reset();
    await server.shutdown();
  }
});
