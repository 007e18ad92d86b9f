/**
 * Attacks on the size of a hook's decisions, one per kind of hook, through the real engine: an
 * over-cap decision fails the hook with an error naming the field, its size and the cap; the
 * operation goes on with the context as it was; nothing big reaches the event log.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as engine from "../lifecycle/mod.ts";
import type { Configured } from "./_test_utils.ts";
import { configured, moduleHook, startCtx } from "./_test_utils.ts";

const MiB = 1024 * 1024;

/** The sink's records as JSON must stay small: the error names sizes, it does not carry them. */
function assertSmallLog(h: Configured) {
  const size = JSON.stringify(h.sink.records).length + JSON.stringify(h.warnings).length;
  assert.ok(size < 16 * 1024, `the event log and warnings got ${size} characters`);
}

async function runStart(h: Configured) {
  const ctx = await engine.run("work_item_start", startCtx());
  assert.equal(ctx.proceed, true, "the failed hook's refusal was not applied");
  assert.equal(ctx.reason, "");
  const [failed] = h.sink.ofType("hooks.failed");
  assert.ok(failed, "hooks.failed was emitted");
  assertSmallLog(h);
  return String(failed.error);
}

Deno.test("module hook: a 32 MiB refusal reason fails in the worker; the log stays small", async () => {
  const h = await configured(
    `hooks:\n  - name: big\n    path: hooks/big.ts\n`,
    {
      "hooks/big.ts": moduleHook(
        `return { proceed: false, reason: "r".repeat(32 * 1024 * 1024) };`,
      ),
    },
    { strict: true },
  );
  try {
    const error = await runStart(h);
    assert.match(error, /at answer\.reason it is a string of 33554432 characters/);
    assert.match(error, /Measured in the hook's worker before it was sent to the-loop/);
  } finally {
    await h.cleanup();
  }
});

Deno.test("module hook: a 5000-byte reason fails at its 4 KiB cap, naming field, size, cap", async () => {
  const h = await configured(
    `hooks:\n  - name: wordy\n    path: hooks/wordy.ts\n`,
    { "hooks/wordy.ts": moduleHook(`return { proceed: false, reason: "w".repeat(5000) };`) },
    { strict: true },
  );
  try {
    const error = await runStart(h);
    assert.equal(
      error,
      'hook "wordy" at work_item_start: decision "reason" is 5000 bytes (4.9 KiB) of UTF-8, ' +
        "over its cap of 4096 bytes (4 KiB); the answer is refused whole: shorten it",
    );
  } finally {
    await h.cleanup();
  }
});

/** A loopback JSON-RPC server answering every call with `answer(id)`. */
function rpcServer(answer: (id: unknown) => unknown) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json().catch(() => ({}));
    return new Response(JSON.stringify(answer(body.id)), {
      headers: { "content-type": "application/json" },
    });
  });
  return { url: `http://127.0.0.1:${server.addr.port}/rpc`, close: () => server.shutdown() };
}

async function remote(answer: (id: unknown) => unknown, check: (error: string) => void) {
  const server = rpcServer(answer);
  try {
    const h = await configured(
      `hooks:\n  - name: far\n    url: ${server.url}\n`,
      {},
      { strict: true },
    );
    try {
      check(await runStart(h));
    } finally {
      await h.cleanup();
    }
  } finally {
    await server.close();
  }
}

Deno.test("remote hook: a result with a 2 MiB reason is refused unread past 1 MiB", () =>
  remote(
    (id) => ({ jsonrpc: "2.0", id, result: { proceed: false, reason: "r".repeat(2 * MiB) } }),
    (error) => assert.match(error, /the response body is larger than 1048576 bytes/),
  ));

Deno.test("remote hook: a result with a 100 KiB reason fails at the reason's cap", () =>
  remote(
    (id) => ({ jsonrpc: "2.0", id, result: { proceed: false, reason: "r".repeat(100 * 1024) } }),
    (error) =>
      assert.match(
        error,
        /decision "reason" is 102400 bytes \(100 KiB\) of UTF-8, over its cap of 4096 bytes/,
      ),
  ));

Deno.test("remote hook: a JSON-RPC error with a 900 KiB message is quoted in part", () =>
  remote(
    (id) => ({ jsonrpc: "2.0", id, error: { code: -32000, message: "e".repeat(900 * 1024) } }),
    (error) => assert.match(error, /code -32000\): e{2000}… \(919600 more characters cut\)$/),
  ));

const LONG_JSON = (n: number) =>
  `#!/bin/sh
cat >/dev/null
printf '{"proceed": false, "reason": "'
head -c ${n} /dev/zero | tr '\\000' r
printf '"}'
`;

async function command(n: number, extra: string, check: (error: string) => void) {
  const h = await configured(
    `hooks:\n  - name: loud\n    command: ["./hooks/loud.sh"]\n${extra}`,
    { "hooks/loud.sh": LONG_JSON(n) },
    { strict: true },
  );
  try {
    check(await runStart(h));
  } finally {
    await h.cleanup();
  }
}

Deno.test("command hook: 2 MiB of JSON on stdout is cut at 1 MiB even when maxOutputBytes allows more", () =>
  command(
    2 * MiB,
    "    maxOutputBytes: 4194304\n",
    (error) =>
      assert.match(error, /stdout is longer than 1048576 bytes, the cap on a hook's whole answer/),
  ));

Deno.test("command hook: a 10 KiB reason on stdout fails at the reason's cap", () =>
  command(
    10 * 1024,
    "",
    (error) =>
      assert.match(error, /decision "reason" is 10240 bytes \(10 KiB\) of UTF-8, over its cap/),
  ));
