/**
 * `serveHooks` never buffers an oversized request: a declared Content-Length over the limit is
 * refused before the body is read, and a body without one is counted and cut off at the limit.
 */
import assert from "node:assert/strict";
import { LifecycleHooks } from "./hooks.ts";
import { serveHooks } from "./serve.ts";

async function withServer(max: number, body: (port: number) => Promise<void>) {
  const ac = new AbortController();
  const server = serveHooks(new LifecycleHooks(), {
    port: 0,
    signal: ac.signal,
    onListen: () => {},
    maxBodyBytes: max,
  });
  try {
    await body(server.addr.port);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("serveHooks answers 413 to a streamed body over the limit before it is all sent", async () => {
  const TOTAL = 256 << 20;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  await withServer(1024, async (port) => {
    // No Content-Length (a stream is sent chunked): the server has to count.
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= TOTAL) return c.close();
        sent += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: stream })
      .catch((e) => e as Error);
    assert.ok(res instanceof Response, `no response: ${res}`);
    assert.equal(res.status, 413);
    assert.ok(sent < TOTAL, `the server read all ${sent} bytes before answering`);
    assert.match(await res.text(), /request body too large \(over 1024 bytes\)/);
  });
});

Deno.test("serveHooks answers 413 on a Content-Length over the limit without waiting for the body", async () => {
  await withServer(1024, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      // Declares 1 GB and sends none of it: only an early refusal answers at all.
      await conn.write(new TextEncoder().encode(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          "Content-Length: 1000000000\r\n\r\n",
      ));
      const buf = new Uint8Array(4096);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const n = await Promise.race([
        conn.read(buf),
        new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), 10_000))),
      ]).finally(() => clearTimeout(timer));
      assert.notEqual(n, "hung", "no answer within 10 s: the server waited for the body");
      const head = new TextDecoder().decode(buf.subarray(0, n as number));
      assert.match(head, /^HTTP\/1\.1 413 /);
    } finally {
      conn.close();
    }
  });
});
