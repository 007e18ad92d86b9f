import assert from "node:assert/strict";
import { HookFailure, HookTimeout } from "../../executor.ts";
import { createRemoteExecutor, type RemoteExecutorOptions } from "./mod.ts";
import { closedPortUrl, json, startServer } from "./_test_utils.ts";

const TOKEN = "tok-SECRET-4f1c9";
const HEADER_VALUE = "hv-SECRET-77ab2";
const PARAMS = { work_item: { ref: "github:acme/app#42" }, proceed: true };

function executor(url: string, extra: Partial<RemoteExecutorOptions> = {}) {
  return createRemoteExecutor({
    name: "guard",
    url,
    tokenEnv: "HOOK_TOKEN",
    headers: { "X-Api-Key": HEADER_VALUE },
    env: (n) => (n === "HOOK_TOKEN" ? TOKEN : undefined),
    ...extra,
  });
}

/** The call rejects with `cls`, its message matches `re`, and it carries no secret. */
async function rejectsSafely(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => HookFailure,
  re: RegExp,
) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${err}`);
    const text = `${(err as Error).message}\n${(err as Error).stack}`;
    assert.match((err as Error).message, re);
    assert.ok(!text.includes(TOKEN), `token leaked: ${text}`);
    assert.ok(!text.includes(HEADER_VALUE), `header value leaked: ${text}`);
    return true;
  });
}

Deno.test("remote: an object result is the answer; the request is JSON-RPC 2.0 with increasing ids", async () => {
  const srv = startServer((b) =>
    json({ jsonrpc: "2.0", id: b?.id, result: { proceed: false, reason: "no" } })
  );
  try {
    const ex = executor(srv.url);
    assert.deepEqual(await ex.call("work_item_start", PARAMS, { timeoutMs: 5000 }), {
      answer: { proceed: false, reason: "no" },
    });
    await ex.call("phase_changed", PARAMS, { timeoutMs: 5000 });
    const [a, b] = srv.seen.map((r) => JSON.parse(r.body));
    assert.deepEqual(a, { jsonrpc: "2.0", id: 1, method: "work_item_start", params: PARAMS });
    assert.equal(b.id, 2);
    assert.equal(b.method, "phase_changed");
    assert.equal(srv.seen[0].method, "POST");
    assert.equal(srv.seen[0].headers.get("content-type"), "application/json");
  } finally {
    await srv.close();
  }
});

Deno.test("remote: a null result passes", async () => {
  const srv = startServer((b) => json({ jsonrpc: "2.0", id: b?.id, result: null }));
  try {
    assert.deepEqual(await executor(srv.url).call("session_spawn", PARAMS, { timeoutMs: 5000 }), {
      answer: null,
    });
  } finally {
    await srv.close();
  }
});

Deno.test("remote: bearer token and the operator's headers are sent", async () => {
  const srv = startServer((b) => json({ jsonrpc: "2.0", id: b?.id, result: null }));
  try {
    await executor(srv.url).call("session_spawn", PARAMS, { timeoutMs: 5000 });
    assert.equal(srv.seen[0].headers.get("authorization"), `Bearer ${TOKEN}`);
    assert.equal(srv.seen[0].headers.get("x-api-key"), HEADER_VALUE);
  } finally {
    await srv.close();
  }
});

Deno.test("remote: no tokenEnv sends no Authorization header", async () => {
  const srv = startServer((b) => json({ jsonrpc: "2.0", id: b?.id, result: null }));
  try {
    await executor(srv.url, { tokenEnv: undefined }).call("session_spawn", PARAMS, {
      timeoutMs: 5000,
    });
    assert.equal(srv.seen[0].headers.get("authorization"), null);
  } finally {
    await srv.close();
  }
});

Deno.test("remote: an unset tokenEnv fails before anything is sent", async () => {
  const srv = startServer((b) => json({ jsonrpc: "2.0", id: b?.id, result: null }));
  try {
    const ex = executor(srv.url, { env: () => undefined });
    await rejectsSafely(
      ex.call("work_item_start", PARAMS, { timeoutMs: 5000 }),
      HookFailure,
      /HOOK_TOKEN.*not set/,
    );
    assert.equal(srv.seen.length, 0);
  } finally {
    await srv.close();
  }
});

Deno.test("remote: an error member fails with the server's message and code, secrets redacted", async () => {
  // The server echoes the Authorization header back: the executor must still not leak it.
  const srv = startServer((b, req) =>
    json({
      jsonrpc: "2.0",
      id: b?.id,
      error: {
        code: -32000,
        message: `denied for ${req.headers.get("authorization")} ${HEADER_VALUE}`,
      },
    })
  );
  try {
    await rejectsSafely(
      executor(srv.url).call("work_item_start", PARAMS, { timeoutMs: 5000 }),
      HookFailure,
      /hook "guard" .*error \(code -32000\): denied for Bearer \[redacted\]/,
    );
  } finally {
    await srv.close();
  }
});

Deno.test("remote: non-2xx, garbage, non-JSON-RPC, wrong id and bad result each fail saying which", async () => {
  const cases: [string, (id: unknown) => Response, RegExp][] = [
    ["non-2xx", () => new Response("overloaded", { status: 503 }), /HTTP 503: overloaded/],
    ["garbage", () => new Response("<html>oops"), /not JSON$/],
    ["not jsonrpc", (id) => json({ id, result: null }), /not JSON-RPC 2\.0/],
    ["no result", (id) => json({ jsonrpc: "2.0", id }), /neither "result" nor "error"/],
    [
      "wrong id",
      () => json({ jsonrpc: "2.0", id: 999, result: null }),
      /different request \(id 999, expected 1\)/,
    ],
    [
      "array result",
      (id) => json({ jsonrpc: "2.0", id, result: [1] }),
      /null or an object.*an array/,
    ],
    [
      "string result",
      (id) => json({ jsonrpc: "2.0", id, result: "yes" }),
      /null or an object.*a string/,
    ],
  ];
  for (const [label, respond, re] of cases) {
    const srv = startServer((b) => respond(b?.id));
    try {
      await rejectsSafely(
        executor(srv.url).call("work_item_start", PARAMS, { timeoutMs: 5000 }),
        HookFailure,
        re,
      );
      assert.equal(srv.seen.length, 1, label);
    } finally {
      await srv.close();
    }
  }
});

Deno.test("remote: an unreachable endpoint fails", async () => {
  const url = await closedPortUrl();
  await rejectsSafely(
    executor(url).call("work_item_start", PARAMS, { timeoutMs: 5000 }),
    HookFailure,
    /could not reach/,
  );
});

Deno.test("remote: a slow endpoint times out with HookTimeout", async () => {
  const release = Promise.withResolvers<void>();
  const srv = startServer(async (b) => {
    await release.promise;
    return json({ jsonrpc: "2.0", id: b?.id, result: null });
  });
  try {
    const started = performance.now();
    await rejectsSafely(
      executor(srv.url).call("work_item_start", PARAMS, { timeoutMs: 150 }),
      HookTimeout,
      /no answer within 150 ms/,
    );
    assert.ok(performance.now() - started < 4000, "the timeout bounded the call");
  } finally {
    release.resolve();
    await srv.close();
  }
});

Deno.test("remote: handles() follows `on`, else every point", () => {
  const all = createRemoteExecutor({ name: "a", url: "http://127.0.0.1:1/" });
  const some = createRemoteExecutor({
    name: "b",
    url: "http://127.0.0.1:1/",
    on: ["session_spawn"],
  });
  assert.equal(all.kind, "remote");
  assert.ok(all.handles("work_item_complete"));
  assert.ok(some.handles("session_spawn"));
  assert.ok(!some.handles("work_item_start"));
});

Deno.test("remote: an invalid url or header fails at creation without echoing the value", () => {
  assert.throws(
    () => createRemoteExecutor({ name: "a", url: "not a url" }),
    /hook "a": url is not a valid/,
  );
  assert.throws(
    () =>
      createRemoteExecutor({
        name: "a",
        url: "http://127.0.0.1:1/",
        headers: { "X-K": `${HEADER_VALUE}\nInjected: 1` },
      }),
    (e: Error) => e instanceof HookFailure && !e.message.includes(HEADER_VALUE),
  );
});

Deno.test("remote: health GETs <path>/health with the credentials; non-2xx throws", async () => {
  let healthy = true;
  const srv = startServer(() => new Response("ok", { status: healthy ? 200 : 500 }));
  try {
    const ex = executor(`${srv.url}/?q=1`);
    const res = await ex.health({ timeoutMs: 5000 });
    assert.equal(res.status, 200);
    assert.equal(srv.seen[0].method, "GET");
    assert.equal(srv.seen[0].path, "/rpc/health");
    assert.equal(srv.seen[0].headers.get("authorization"), `Bearer ${TOKEN}`);
    healthy = false;
    await rejectsSafely(
      ex.health({ timeoutMs: 5000 }),
      HookFailure,
      /health check answered HTTP 500/,
    );
  } finally {
    await srv.close();
  }
});

Deno.test("remote: health falls back to the origin's /health (where serveHooks answers it)", async () => {
  const srv = startServer((_b, req) =>
    new Response("ok", { status: req.path === "/health" ? 200 : 404 })
  );
  try {
    const ex = executor(srv.url);
    assert.equal((await ex.health({ timeoutMs: 5000 })).status, 200);
    assert.deepEqual(srv.seen.map((r) => r.path), ["/rpc/health", "/health"]);
    const root = executor(srv.url.replace(/\/rpc$/, "/"));
    await root.health({ timeoutMs: 5000 });
    assert.deepEqual(srv.seen.slice(2).map((r) => r.path), ["/health"]);
  } finally {
    await srv.close();
  }
});

Deno.test("remote: health of an unreachable endpoint throws HookFailure", async () => {
  const url = await closedPortUrl();
  await rejectsSafely(executor(url).health({ timeoutMs: 5000 }), HookFailure, /could not reach/);
});

Deno.test("remote: close() cancels an in-flight call", async () => {
  const release = Promise.withResolvers<void>();
  const srv = startServer(async (b) => {
    await release.promise;
    return json({ jsonrpc: "2.0", id: b?.id, result: null });
  });
  try {
    const ex = executor(srv.url);
    const pending = ex.call("work_item_start", PARAMS, { timeoutMs: 30_000 });
    while (srv.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    await ex.close();
    await ex.close();
    await rejectsSafely(pending, HookFailure, /cancelled because the hook was closed/);
  } finally {
    release.resolve();
    await srv.close();
  }
});

Deno.test("remote: a token a header cannot carry fails without echoing it", async () => {
  const bad = `${TOKEN}\nX: y`;
  const ex = executor("http://127.0.0.1:1/", { env: () => bad });
  await assert.rejects(
    ex.call("work_item_start", PARAMS, { timeoutMs: 1000 }),
    (e: Error) =>
      e instanceof HookFailure && /HOOK_TOKEN/.test(e.message) && !e.message.includes(TOKEN),
  );
});
