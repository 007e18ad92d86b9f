/**
 * The hook engine end to end: a real cli-config.yaml read by the real config loader, a real
 * command hook, a real module hook in its worker and a real remote on loopback, chained by the
 * process-wide seam; then real hooks failing every way they can, each failure its own.
 *
 * @module
 */
import assert from "node:assert/strict";
import { loadConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "../lifecycle/mod.ts";
import { makeContext } from "../lifecycle/sdk/mod.ts";
import { type Configured, configured, moduleHook, startCtx } from "./_test_utils.ts";

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
    // The required remote failed last, so its failure is the reason (the chaining of the
    // command's answer into the module's is the next test's).
    assert.match(ctx.reason, /^required hook "compliance" failed: /);
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
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
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
    await Deno.remove(dir, { recursive: true });
  }
});

// --- Real failures: every one stays the failing hook's own; the chain always finishes. ---

const LAST = `#!/bin/sh
cat >/dev/null
printf '{"reason": "last ran"}\\n'
`;

Deno.test("real module hooks that throw, hang, answer a fact or a wrong type fail alone; the chain finishes", async () => {
  const yaml = `hooks:
  - name: thrower
    path: hooks/thrower.ts
  - name: hanger
    path: hooks/hanger.ts
    timeoutSeconds: 0.5
  - name: facter
    path: hooks/facter.ts
  - name: wrongtype
    path: hooks/wrongtype.ts
  - name: last
    command: ["./hooks/last.sh"]
`;
  const h = await configured(yaml, {
    "hooks/thrower.ts": moduleHook(`throw new Error("roster service down");`),
    "hooks/hanger.ts": moduleHook(`await new Promise(() => {});`),
    "hooks/facter.ts": moduleHook(`return { actor: "eve" } as never;`),
    "hooks/wrongtype.ts": moduleHook(`return { proceed: "yes" } as never;`),
    "hooks/last.sh": LAST,
  }, { strict: true });
  try {
    const ctx = await engine.run("work_item_start", startCtx());
    assert.equal(ctx.reason, "last ran", "the hook after the failures still ran");
    assert.equal(ctx.proceed, true);
    assert.equal(ctx.actor, "mallory", "a fact is never changed");
    const ran = h.sink.ofType("hooks.ran");
    assert.deepEqual(ran.map((r) => [r.hook, r.kind, r.disposition]), [
      ["thrower", "module", "failed"],
      ["hanger", "module", "timed_out"],
      ["facter", "module", "failed"],
      ["wrongtype", "module", "failed"],
      ["last", "command", "decided"],
    ]);
    const failed = new Map(h.sink.ofType("hooks.failed").map((r) => [r.hook, String(r.error)]));
    assert.match(failed.get("thrower") ?? "", /roster service down/);
    assert.match(failed.get("hanger") ?? "", /500 ms/);
    assert.match(failed.get("facter") ?? "", /"actor" is a fact, not a decision/);
    assert.match(failed.get("wrongtype") ?? "", /decision "proceed"/);
    const [timedOut] = h.sink.ofType("hooks.timed_out");
    assert.deepEqual([timedOut.hook, timedOut.timeout_ms], ["hanger", 500]);
    assert.equal(h.warnings.filter((w) => /its answer is ignored/.test(w)).length, 4);
  } finally {
    await h.cleanup();
  }
});

Deno.test("a module hook that fails to import: non-strict records hooks.load_failed and runs hookless", async () => {
  const yaml = `hooks:
  - name: good
    path: hooks/good.ts
  - name: broken
    path: hooks/broken.ts
`;
  const h = await configured(yaml, {
    "hooks/good.ts": moduleHook(`return { reason: "good ran" };`),
    "hooks/broken.ts": `import { nothing } from "./missing.ts";\nexport const x = nothing;\n`,
  }, { strict: false });
  try {
    const [failed] = h.sink.ofType("hooks.load_failed");
    assert.equal(failed.strict, false);
    assert.match(String(failed.error), /cli-config\.yaml:4:\d+: hooks\[1\]: hook "broken": /);
    assert.match(String(failed.error), /missing\.ts/);
    assert.deepEqual(h.sink.ofType("hooks.loaded"), []);
    assert.match(h.warnings[0], /running without hooks: .*hook "broken"/s);
    // Per ADR 0004 a one-shot command that cannot load its hooks runs without any of them.
    const ctx = await engine.run("work_item_start", startCtx());
    assert.deepEqual([ctx.proceed, ctx.reason], [true, ""]);
    assert.deepEqual(h.sink.ofType("hooks.ran"), []);
  } finally {
    await h.cleanup();
  }
});

Deno.test("real remotes that are unreachable, answer garbage or a wrong id fail alone; the chain finishes", async () => {
  const garbage = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<html>oops</html>"),
  );
  const wrongId = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.text();
    return Response.json({ jsonrpc: "2.0", id: 999, result: { reason: "not for you" } });
  });
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const yaml = `hooks:
  - name: unreachable
    url: http://127.0.0.1:${closedPort}/rpc
  - name: garbage
    url: http://127.0.0.1:${garbage.addr.port}/rpc
  - name: wrong-id
    url: http://127.0.0.1:${wrongId.addr.port}/rpc
  - name: last
    command: ["./hooks/last.sh"]
`;
  let h: Configured | undefined;
  try {
    h = await configured(yaml, { "hooks/last.sh": LAST }, { strict: true });
    const ctx = await engine.run("work_item_start", startCtx());
    assert.equal(ctx.reason, "last ran");
    assert.deepEqual(h.sink.ofType("hooks.ran").map((r) => [r.hook, r.disposition]), [
      ["unreachable", "failed"],
      ["garbage", "failed"],
      ["wrong-id", "failed"],
      ["last", "decided"],
    ]);
    const failed = new Map(h.sink.ofType("hooks.failed").map((r) => [r.hook, String(r.error)]));
    assert.match(failed.get("unreachable") ?? "", /could not reach the endpoint/);
    assert.match(failed.get("garbage") ?? "", /not JSON/);
    assert.match(
      failed.get("wrong-id") ?? "",
      /answers a different request \(id 999, expected 1\)/,
    );
  } finally {
    await h?.cleanup();
    await garbage.shutdown();
    await wrongId.shutdown();
  }
});
