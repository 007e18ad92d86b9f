// The remote executor against the-loop's own hook server (`serveHooks`): the two halves of the
// JSON-RPC wire agree, bearer auth included, and the health check finds the server's /health.
import assert from "node:assert/strict";
import type { WorkItemStart } from "../../sdk/contract.ts";
import { HookFailure } from "../../executor.ts";
import { LifecycleHooks } from "../../sdk/hooks.ts";
import { serveHooks } from "../../sdk/serve.ts";
import { createRemoteExecutor } from "./mod.ts";

class Roster extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    if (ctx.actor === "mallory") return { proceed: false, reason: "not on the roster" };
  }
}

const PARAMS = {
  work_item: "github:acme/app#42",
  loop: "l",
  command: "start",
  harness: "claude",
  instance: "",
};

Deno.test("remote executor ↔ serveHooks: decisions, pass, bearer, health", async () => {
  const TOKEN_ENV = "THE_LOOP_TEST_INTEROP_TOKEN";
  Deno.env.set(TOKEN_ENV, "interop-SECRET-1");
  const ac = new AbortController();
  const server = serveHooks(new Roster(), {
    port: 0,
    path: "/rpc",
    tokenEnv: TOKEN_ENV,
    signal: ac.signal,
    onListen() {},
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/rpc`;
    const ok = createRemoteExecutor({ name: "roster", url, tokenEnv: TOKEN_ENV });
    const refused = await ok.call("work_item_start", { ...PARAMS, actor: "mallory" }, {
      timeoutMs: 5000,
    });
    assert.deepEqual(refused.answer, { proceed: false, reason: "not on the roster" });
    const passed = await ok.call("work_item_start", { ...PARAMS, actor: "alice" }, {
      timeoutMs: 5000,
    });
    assert.equal(passed.answer, null);
    assert.equal((await ok.health({ timeoutMs: 5000 })).status, 200);

    const wrong = createRemoteExecutor({
      name: "roster",
      url,
      tokenEnv: "X",
      env: () => "wrong-SECRET-2",
    });
    await assert.rejects(
      wrong.call("work_item_start", { ...PARAMS, actor: "alice" }, { timeoutMs: 5000 }),
      (e: unknown) =>
        e instanceof HookFailure && /HTTP 401/.test(e.message) && !e.message.includes("SECRET"),
    );
  } finally {
    ac.abort();
    await server.finished;
    Deno.env.delete(TOKEN_ENV);
  }
});
