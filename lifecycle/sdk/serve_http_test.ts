import assert from "node:assert/strict";
import type { WorkItemStart } from "./contract.ts";
import { LifecycleHooks } from "./hooks.ts";
import { serveHooks } from "./serve.ts";

class Roster extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    if (ctx.actor === "mallory") return { proceed: false, reason: "not on the roster" };
  }
}

const call = (actor: string, opts: { notification?: boolean } = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    ...(opts.notification ? {} : { id: 1 }),
    method: "work_item_start",
    params: {
      work_item: "github:acme/app#42",
      loop: "l",
      command: "start",
      actor,
      harness: "claude",
      instance: "",
    },
  });

async function withServer(
  opts: { tokenEnv?: string; path?: string },
  body: (base: string) => Promise<void>,
) {
  const ac = new AbortController();
  let listened: Deno.NetAddr | undefined;
  const server = serveHooks(new Roster(), {
    port: 0,
    signal: ac.signal,
    onListen: (a) => listened = a,
    ...opts,
  });
  try {
    assert.equal(server.addr.hostname, "127.0.0.1");
    assert.equal(listened?.port, server.addr.port);
    await body(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("serveHooks answers GET /health with ok and POSTed calls with JSON-RPC", async () => {
  await withServer({}, async (base) => {
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), "ok");
    const res = await fetch(`${base}/`, { method: "POST", body: call("mallory") });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      id: 1,
      result: { proceed: false, reason: "not on the roster" },
    });
    const note = await fetch(`${base}/`, {
      method: "POST",
      body: call("x", { notification: true }),
    });
    assert.equal(note.status, 204);
    await note.body?.cancel();
  });
});

Deno.test("serveHooks serves at its path only, and only POST there", async () => {
  await withServer({ path: "/the-loop" }, async (base) => {
    const ok = await fetch(`${base}/the-loop`, { method: "POST", body: call("ok") });
    assert.deepEqual((await ok.json()).result, null);
    const elsewhere = await fetch(`${base}/`, { method: "POST", body: call("ok") });
    assert.equal(elsewhere.status, 404);
    await elsewhere.body?.cancel();
    const get = await fetch(`${base}/the-loop`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST");
    await get.body?.cancel();
  });
});

Deno.test("serveHooks checks the bearer token named by tokenEnv", async () => {
  const name = `THE_LOOP_TEST_HOOK_TOKEN_${crypto.randomUUID().replaceAll("-", "_")}`;
  const token = "s3cret-token-value";
  Deno.env.set(name, token);
  try {
    await withServer({ tokenEnv: name }, async (base) => {
      const post = (auth?: string) =>
        fetch(`${base}/`, {
          method: "POST",
          body: call("mallory"),
          headers: auth === undefined ? {} : { authorization: auth },
        });
      const good = await post(`Bearer ${token}`);
      assert.equal(good.status, 200);
      assert.equal((await good.json()).result.proceed, false);
      for (
        const bad of [undefined, "Bearer wrong", `Bearer ${token}x`, `Basic ${token}`, "Bearer "]
      ) {
        const res = await post(bad);
        assert.equal(res.status, 401, String(bad));
        assert.equal(res.headers.get("www-authenticate"), "Bearer");
        assert.ok(!(await res.text()).includes(token), "the token is never echoed");
      }
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200, "health needs no token");
      await health.body?.cancel();
    });
  } finally {
    Deno.env.delete(name);
  }
});

Deno.test("serveHooks refuses to start when tokenEnv names an unset variable", () => {
  const name = `THE_LOOP_TEST_UNSET_${crypto.randomUUID().replaceAll("-", "_")}`;
  assert.throws(
    () => serveHooks(new Roster(), { port: 0, tokenEnv: name, onListen: () => {} }),
    new RegExp(`tokenEnv names ${name}, but that environment variable is unset or empty`),
  );
});

Deno.test("serveHooks refuses a path that is not one, or shadows /health", () => {
  for (const path of ["hooks", "/health"]) {
    assert.throws(() => serveHooks(new Roster(), { port: 0, path }), /path must start with/);
  }
});

Deno.test("serveHooks refuses a body over maxBodyBytes with 413", async () => {
  const ac = new AbortController();
  const server = serveHooks(new Roster(), {
    port: 0,
    signal: ac.signal,
    onListen: () => {},
    maxBodyBytes: 64,
  });
  try {
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      method: "POST",
      body: call("a".repeat(100)),
    });
    assert.equal(res.status, 413);
    await res.body?.cancel();
  } finally {
    ac.abort();
    await server.finished;
  }
});
