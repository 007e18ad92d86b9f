/**
 * The receiver's limits, end to end against a real `the-loop gh-webhook start`: a connection
 * that does not finish its headers in time is closed by the server, the connections held at
 * once are capped while `/health` still answers at the cap, and refused chunked bodies leave the
 * receiver's memory (its RSS, from `/proc`) where it was.
 */
import assert from "node:assert/strict";
import { readOutput, spawnCli, stopChild, tree } from "./_test_utils.ts";

const READY = /^gh-webhook: listening on (http:\/\/127\.0\.0\.1:(\d+)\/gh-webhook) \(pid (\d+)\)$/m;
const ENC = new TextEncoder();

function config(extra: string): string {
  return `version: "0.1.0"
state:
  root: state
webhooks:
  ghWebhook:
${extra}
`;
}

/** Polls `probe` until it returns something truthy; fails only a hung test (`ms`). */
async function waitFor<T>(
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `gh-webhook start --no-route --port 0` in a tree with `extra` under `ghWebhook`. */
async function start(extra: string) {
  const dir = tree({ ".the-loop/cli-config.yaml": config(extra) });
  const child = spawnCli(["gh-webhook", "start", "--port", "0", "--no-route"], { cwd: dir });
  const { out, done } = readOutput(child);
  const ready = await waitFor(() => READY.exec(out.stdout), "the ready line");
  return {
    url: ready[1],
    port: Number(ready[2]),
    pid: Number(ready[3]),
    async [Symbol.asyncDispose]() {
      await stopChild(child, "SIGTERM");
      await done;
    },
  };
}

/** A connection that sent a request's first lines and never the blank line that ends them. */
async function partial(port: number): Promise<{ conn: Deno.TcpConn; closed: Promise<string> }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    ENC.encode("POST /gh-webhook HTTP/1.1\r\nhost: x\r\nx-github-event: issues\r\n"),
  );
  const closed = (async () => {
    const buf = new Uint8Array(4096);
    let text = "";
    while (true) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return text; // closed by the server
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  })();
  return { conn, closed };
}

Deno.test("a connection that has not sent complete headers in time is closed by the receiver", async () => {
  await using r = await start("    headersTimeoutSeconds: 0.3");
  const t0 = performance.now();
  const slow = await Promise.all(Array.from({ length: 50 }, () => partial(r.port)));
  let closed = 0;
  for (const s of slow) s.closed.then(() => closed++);
  // fails only a receiver that never closes them (today's: all still open after 30 s)
  await waitFor(() => closed === slow.length, "the slow connections to be closed", 15_000);
  const ms = performance.now() - t0;
  for (const s of slow) {
    const text = await s.closed;
    assert.ok(text === "" || text.startsWith("HTTP/1.1 408"), text);
    s.conn.close();
  }
  assert.ok(ms >= 300, `closed after ${ms} ms, before the deadline`);
  // the receiver still answers
  const health = await fetch(new URL("/health", r.url));
  assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
});

Deno.test("connections are capped, and /health still answers at the cap", async () => {
  await using r = await start("    maxConnections: 8");
  const held = [];
  for (let i = 0; i < 20; i++) held.push(await partial(r.port));
  let closed = 0;
  const gone = held.map(() => false);
  held.forEach((s, i) => s.closed.then(() => (closed++, gone[i] = true)));
  // 20 connections that send nothing more, against a cap of 8: the oldest make room
  await waitFor(() => closed >= 12, "the connections over the cap to be closed");
  for (let i = 0; i < 3; i++) {
    const health = await fetch(new URL("/health", r.url));
    assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
  }
  const posted = await fetch(r.url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "ping" },
    body: "{}",
  });
  assert.equal(posted.status, 202);
  await posted.body?.cancel();
  // the oldest quiet ones made room: the first 12 went
  assert.deepEqual(gone.slice(0, 12), Array(12).fill(true));
  for (const s of held) s.conn.close();
});

Deno.test("at the cap, connections trickling a body make room too, and /health still answers", async () => {
  await using r = await start("    maxConnections: 8");
  const held = [];
  for (let i = 0; i < 20; i++) {
    const p = await partial(r.port);
    // the headers complete, then a body that never arrives whole
    await p.conn.write(
      ENC.encode("content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"),
    );
    held.push(p);
  }
  let closed = 0;
  held.forEach((s) => s.closed.then(() => closed++));
  await waitFor(() => closed >= 12, "the connections over the cap to be closed");
  for (let i = 0; i < 3; i++) {
    const health = await fetch(new URL("/health", r.url));
    assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
  }
  for (const s of held) s.conn.close();
});

/**
 * The receiver's resident memory (MB), from `/proc/<pid>/status` read by `cat` (Deno asks for
 * --allow-all to read under /proc/<pid>, which the suite's permissions do not give).
 */
function rssMb(pid: number): number {
  const out = new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdout: "piped" })
    .outputSync();
  const status = new TextDecoder().decode(out.stdout);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Sends a `total`-byte chunked body on a connection of its own; resolves to the status line. */
async function chunked(port: number, total: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const writeAll = async (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
  };
  const answer = (async () => {
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf).catch(() => null);
    return n === null ? "" : new TextDecoder().decode(buf.subarray(0, n)).split("\r\n")[0];
  })();
  try {
    await writeAll(ENC.encode(
      "POST /gh-webhook HTTP/1.1\r\nhost: x\r\nx-github-event: issues\r\n" +
        "transfer-encoding: chunked\r\n\r\n",
    ));
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const head = ENC.encode(`${chunk.length.toString(16)}\r\n`);
    for (let sent = 0; sent < total; sent += chunk.length) {
      await writeAll(head);
      await writeAll(chunk);
      await writeAll(ENC.encode("\r\n"));
    }
    await writeAll(ENC.encode("0\r\n\r\n"));
  } catch {
    // the receiver closed the connection after its 413
  }
  const status = await answer;
  conn.close();
  return status;
}

Deno.test("30 MB chunked bodies refused with 413 leave the receiver's memory where it was", async () => {
  await using r = await start("    host: 127.0.0.1");
  // warm up: the runtime's own first allocations are not what is measured
  for (let i = 0; i < 200; i++) {
    const res = await fetch(r.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping" },
      body: JSON.stringify({ i }),
    });
    await res.body?.cancel();
  }
  assert.match(await chunked(r.port, 64 * 1024), /^HTTP\/1.1 400/); // not JSON, within the cap
  const before = rssMb(r.pid);
  for (let i = 0; i < 3; i++) {
    assert.match(await chunked(r.port, 30_000_000), /^HTTP\/1.1 413/);
  }
  const grown = rssMb(r.pid) - before;
  // today's code: +50 to +110 MB that stays; a few MB is the runtime's own noise
  assert.ok(grown < 12, `RSS grew ${grown.toFixed(1)} MB over three refused 30 MB bodies`);
});
