/**
 * What the remote executor refuses to do on a server's say-so: follow a redirect (the context
 * and credentials would go to another origin), buffer an unbounded body; and what it accepts:
 * an error answered with `"id": null`.
 */
import assert from "node:assert/strict";
import { HookFailure } from "../../executor.ts";
import { createRemoteExecutor } from "./mod.ts";
import { json, startServer } from "./_test_utils.ts";

const TOKEN = "tok-SECRET-redirect-81d";
const HEADER_VALUE = "hv-SECRET-redirect-3c0";
const PARAMS = { work_item: { ref: "github:acme/app#42" }, proceed: true };

function executor(url: string) {
  return createRemoteExecutor({
    name: "guard",
    url,
    tokenEnv: "HOOK_TOKEN",
    headers: { "X-Api-Key": HEADER_VALUE },
    env: (n) => (n === "HOOK_TOKEN" ? TOKEN : undefined),
  });
}

function assertSecretFree(err: Error) {
  const text = `${err.message}\n${err.stack}`;
  assert.ok(!text.includes(TOKEN), `token leaked: ${text}`);
  assert.ok(!text.includes(HEADER_VALUE), `header value leaked: ${text}`);
}

Deno.test("remote: a redirect is not followed, for call and health; the error names only the origin", async () => {
  const elsewhere = startServer(() => json({ jsonrpc: "2.0", id: 1, result: null }));
  const target = new URL(elsewhere.url);
  const redirector = startServer(() =>
    new Response(null, {
      status: 307,
      headers: { location: `${target.origin}/collect?key=query-secret-9` },
    })
  );
  try {
    const ex = executor(redirector.url);
    for (
      const attempt of [
        () => ex.call("work_item_start", PARAMS, { timeoutMs: 5000 }),
        () => ex.health({ timeoutMs: 5000 }),
      ]
    ) {
      await assert.rejects(attempt(), (err: unknown) => {
        assert.ok(err instanceof HookFailure);
        assert.match(
          err.message,
          new RegExp(`HTTP 307, redirecting to ${target.origin};.*not followed`),
        );
        assert.ok(!err.message.includes("query-secret-9"), err.message);
        assert.ok(!err.message.includes("/collect"), err.message);
        assertSecretFree(err);
        return true;
      });
    }
    assert.equal(redirector.seen.length, 2, "one POST and one health GET reached the first server");
    assert.deepEqual(elsewhere.seen, [], "nothing was re-sent to the redirect's target");
  } finally {
    await redirector.close();
    await elsewhere.close();
  }
});

Deno.test('remote: an error answered with "id": null is the server\'s error, message kept', async () => {
  const srv = startServer(() =>
    json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error: at 1:1" } })
  );
  try {
    await assert.rejects(
      executor(srv.url).call("work_item_start", PARAMS, { timeoutMs: 5000 }),
      (err: unknown) => {
        assert.ok(err instanceof HookFailure);
        assert.match(err.message, /answered an error \(code -32700\): parse error: at 1:1$/);
        return true;
      },
    );
  } finally {
    await srv.close();
  }
});

Deno.test('remote: a result with "id": null still answers a different request', async () => {
  const srv = startServer(() => json({ jsonrpc: "2.0", id: null, result: { proceed: false } }));
  try {
    await assert.rejects(
      executor(srv.url).call("work_item_start", PARAMS, { timeoutMs: 5000 }),
      /different request \(id null, expected 1\)/,
    );
  } finally {
    await srv.close();
  }
});

Deno.test("remote: a response body over 1 MiB fails without being read to its end", async () => {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  let cancelled = false;
  const srv = startServer(() => {
    // An endless body: only a reader that stops at its cap ever sees the call end.
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += chunk.byteLength;
        c.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  try {
    await assert.rejects(
      executor(srv.url).call("work_item_start", PARAMS, { timeoutMs: 10_000 }),
      (err: unknown) => {
        assert.ok(err instanceof HookFailure);
        assert.match(err.message, /response body is larger than 1048576 bytes/);
        return true;
      },
    );
    const end = performance.now() + 5000;
    while (!cancelled && performance.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.ok(cancelled, "the server's body stream was cancelled");
    assert.ok(sent < 64 << 20, `the server produced ${sent} bytes`);
  } finally {
    await srv.close();
  }
});
