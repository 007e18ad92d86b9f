import assert from "node:assert/strict";
import type { SessionSpawn, WorkItemStart } from "./contract.ts";
import { LifecycleHooks } from "./hooks.ts";
import { handleRequest } from "./serve.ts";
import { workItemFromRef } from "./work_item.ts";

const item = workItemFromRef("github:acme/app#42", { kind: "issue" });
const startParams = {
  work_item: item,
  loop: "pdlc-work-item-loop",
  command: "start",
  actor: "mallory",
  harness: "claude",
  instance: "",
  proceed: true,
  reason: "",
};

class Roster extends LifecycleHooks {
  seen: WorkItemStart[] = [];
  override work_item_start(ctx: WorkItemStart) {
    this.seen.push(ctx);
    if (ctx.actor === "mallory") return { proceed: false, reason: "not on the roster" };
    if (ctx.actor === "boom") throw new Error("roster service down");
    if (ctx.actor === "whole") return { ...ctx, reason: "kept" };
    if (ctx.actor === "cheat") return { ...ctx, harness: "cursor" };
  }
  override async session_spawn(ctx: SessionSpawn) {
    return await Promise.resolve({ ...ctx, prompt: `${ctx.endpoint.url}\n${ctx.prompt}` });
  }
}

async function rpc(hooks: LifecycleHooks, msg: unknown): Promise<Record<string, unknown> | null> {
  const out = await handleRequest(hooks, typeof msg === "string" ? msg : JSON.stringify(msg));
  return out === null ? null : JSON.parse(out);
}
const req = (method: string, params: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

Deno.test("a call answers the decisions the hook returned", async () => {
  const hooks = new Roster();
  assert.deepEqual(await rpc(hooks, req("work_item_start", startParams)), {
    jsonrpc: "2.0",
    id: 1,
    result: { proceed: false, reason: "not on the roster" },
  });
  assert.deepEqual(hooks.seen[0].work_item, item);
});

Deno.test("a hook that passes answers result null", async () => {
  const out = await rpc(new Roster(), req("work_item_start", { ...startParams, actor: "ok" }, "a"));
  assert.deepEqual(out, { jsonrpc: "2.0", id: "a", result: null });
  const none = await rpc(
    new Roster(),
    req("phase_changed", {
      work_item: item,
      loop: "l",
      from_node: "",
      to_node: "n",
      from_phase: "",
      to_phase: "p",
      outcome: "",
      actor: "agent",
      terminal: false,
    }),
  );
  assert.deepEqual(none?.result, null, "a point the class does not override passes");
});

Deno.test("a returned whole context is answered with its decision fields only", async () => {
  const out = await rpc(new Roster(), req("work_item_start", { ...startParams, actor: "whole" }));
  assert.deepEqual(out?.result, { proceed: true, reason: "kept" });
});

Deno.test("params may carry bare refs for work items, and unknown keys are ignored", async () => {
  const hooks = new Roster();
  const out = await rpc(
    hooks,
    req("session_spawn", {
      work_item: "github:acme/app#42",
      endpoint: "github:ghe.acme.example/acme/app#43",
      harness: "claude",
      cwd: "/w",
      model: "",
      effort: "",
      harness_args: [],
      respawn: false,
      loop: "",
      prompt: "Go.",
      added_in_a_later_version: 1,
    }),
  );
  assert.deepEqual(out?.result, {
    prompt: "https://ghe.acme.example/acme/app/issues/43\nGo.",
    proceed: true,
    reason: "",
  });
});

Deno.test("error -32700: a body that is not JSON", async () => {
  const out = await rpc(new Roster(), "{nope");
  assert.equal(out?.id, null);
  assert.equal((out?.error as { code: number }).code, -32700);
});

Deno.test("error -32600: not a JSON-RPC 2.0 request (each way)", async () => {
  const cases: [unknown, unknown][] = [
    [[req("work_item_start", startParams)], null], // batch
    [42, null],
    [{ ...req("work_item_start", startParams), jsonrpc: "1.0" }, 1],
    [{ jsonrpc: "2.0", id: 7, params: startParams }, 7], // no method
    [{ ...req("work_item_start", startParams), method: 3 }, 1],
    [req("work_item_start", [startParams]), 1], // positional params
    [req("work_item_start", "x"), 1],
    [req("work_item_start", startParams, { an: "object" }), null], // bad id
  ];
  for (const [msg, id] of cases) {
    const out = await rpc(new Roster(), msg);
    assert.equal((out?.error as { code: number }).code, -32600, JSON.stringify(msg));
    assert.equal(out?.id, id);
    assert.match((out?.error as { message: string }).message, /^invalid request: /);
  }
});

Deno.test("error -32601: a method that is no point", async () => {
  const out = await rpc(new Roster(), req("handles", startParams));
  assert.deepEqual(out?.error, {
    code: -32601,
    message: 'method not found: "handles" is not a lifecycle point (points: work_item_start, ' +
      "session_spawn, session_spawned, waiting_for_input, input_received, phase_changed, " +
      "work_item_complete)",
  });
});

Deno.test("error -32602: a fact missing or of the wrong type", async () => {
  const bad = await rpc(new Roster(), req("work_item_start", { ...startParams, actor: 5 }));
  assert.deepEqual(bad?.error, {
    code: -32602,
    message: 'invalid params: work_item_start: "actor" must be a string (got number 5)',
  });
  const { loop: _, ...noLoop } = startParams;
  const missing = await rpc(new Roster(), req("work_item_start", noLoop));
  assert.match((missing?.error as { message: string }).message, /fact "loop" is missing/);
  const ref = await rpc(new Roster(), req("work_item_start", { ...startParams, work_item: "x" }));
  assert.equal((ref?.error as { code: number }).code, -32602);
  const none = await rpc(new Roster(), { jsonrpc: "2.0", id: 2, method: "work_item_start" });
  assert.equal((none?.error as { code: number }).code, -32602, "absent params: facts missing");
});

Deno.test("error -32000: the hook threw, or answered a changed fact", async () => {
  const boom = await rpc(new Roster(), req("work_item_start", { ...startParams, actor: "boom" }));
  assert.deepEqual(boom?.error, { code: -32000, message: "roster service down" });
  const cheat = await rpc(new Roster(), req("work_item_start", { ...startParams, actor: "cheat" }));
  assert.deepEqual(cheat?.error, {
    code: -32000,
    message: 'hook "Roster" at work_item_start: "harness" is a fact, not a decision ' +
      "(decisions: proceed, reason)",
  });
});

Deno.test("a notification runs the hook and answers nothing, even on error", async () => {
  const hooks = new Roster();
  const { id: _, ...note } = req("work_item_start", startParams);
  assert.equal(await handleRequest(hooks, JSON.stringify(note)), null);
  assert.equal(hooks.seen.length, 1, "the hook ran");
  const unknown = { ...note, method: "nope" };
  assert.equal(await handleRequest(hooks, JSON.stringify(unknown)), null);
});
