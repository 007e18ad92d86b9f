import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../events/mod.ts";
import { callControl, NotRunningError } from "./control_client.ts";
import { type ControlResponse, serveControl } from "./control_socket.ts";

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-ctl-" }));
}

/** Sends `bytes` raw and reads the whole answer (to the end of the connection). */
async function raw(path: string, bytes: Uint8Array, end = true): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path });
  await conn.write(bytes);
  if (end) await conn.closeWrite();
  const out: Uint8Array[] = [];
  const buf = new Uint8Array(4096);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    out.push(buf.slice(0, n));
  }
  conn.close();
  return new TextDecoder().decode(new Uint8Array(out.flatMap((b) => [...b])));
}

Deno.test("serveControl: one request line in, the handler's answer out; the socket is 0600", async () => {
  const dir = await tempDir();
  const path = join(dir, "poll.sock");
  const events = new MemorySink();
  const seen: Record<string, unknown>[] = [];
  const server = await serveControl({
    path,
    events,
    handle: (req) => {
      seen.push(req);
      return Promise.resolve({ exit: 0, message: `did ${req.verb}`, data: { n: 1 } });
    },
  });
  try {
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.ok((await Deno.lstat(path)).isSocket);
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name),
      ["poll.sock"],
      "bound in a private folder, renamed into place, the folder gone",
    );
    const r = await callControl(path, { v: 1, verb: "reply", ref: "github:o/r#1" });
    assert.deepEqual(r, { exit: 0, message: "did reply", data: { n: 1 } });
    assert.deepEqual(seen, [{ v: 1, verb: "reply", ref: "github:o/r#1" }]);
    assert.deepEqual(events.records.map((r) => r.event), ["control.listening"]);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
  await assert.rejects(Deno.lstat(path), Deno.errors.NotFound, "close removed the socket file");
});

Deno.test("serveControl: a malformed or oversized line is exit 2, the handler never called", async () => {
  const dir = await tempDir();
  const path = join(dir, "s.sock");
  const events = new MemorySink();
  let called = 0;
  const server = await serveControl({
    path,
    events,
    maxBytes: 100,
    handle: () => {
      called++;
      return Promise.resolve({ exit: 0, message: "" });
    },
  });
  try {
    const enc = new TextEncoder();
    for (
      const [bytes, want] of [
        [enc.encode("not json\n"), /not one line of JSON/],
        [enc.encode("[1,2]\n"), /not a JSON object/],
        [new Uint8Array([0xff, 0xfe, 0x0a]), /not one line of JSON/],
        [enc.encode(JSON.stringify({ text: "x".repeat(200) }) + "\n"), /longer than 100 bytes/],
      ] as const
    ) {
      const answer = JSON.parse(await raw(path, bytes)) as ControlResponse;
      assert.equal(answer.exit, 2);
      assert.match(answer.message, want);
    }
    assert.equal(called, 0);
    assert.equal(events.ofType("control.request_rejected").length, 4);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveControl: requests are handled concurrently", async () => {
  const dir = await tempDir();
  const path = join(dir, "s.sock");
  const first = Promise.withResolvers<void>();
  const server = await serveControl({
    path,
    handle: async (req) => {
      if (req.n === 1) await first.promise; // held until the second one is answered
      return { exit: 0, message: `n${req.n}` };
    },
  });
  try {
    const one = callControl(path, { n: 1 });
    assert.equal((await callControl(path, { n: 2 })).message, "n2");
    first.resolve();
    assert.equal((await one).message, "n1");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveControl: a client that sends no whole line is cut off after the read time", async () => {
  const dir = await tempDir();
  const path = join(dir, "s.sock");
  const server = await serveControl({
    path,
    readTimeoutMs: 100,
    handle: () => Promise.resolve({ exit: 0, message: "" }),
  });
  try {
    // no newline, no end of file: the server closes it with no answer
    assert.equal(await raw(path, new TextEncoder().encode('{"v":1'), false), "");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveControl: a dead daemon's socket file is replaced; another file in the way is refused", async () => {
  const dir = await tempDir();
  const path = join(dir, "s.sock");
  try {
    const stale = Deno.listen({ transport: "unix", path });
    stale.close(); // the file stays, nothing listens
    await assert.rejects(callControl(path, {}), NotRunningError);
    const server = await serveControl({
      path,
      handle: () => Promise.resolve({ exit: 0, message: "ok" }),
    });
    assert.equal((await callControl(path, {})).message, "ok");
    // a live daemon's socket is never taken over
    await assert.rejects(
      serveControl({ path, handle: () => Promise.resolve({ exit: 0, message: "" }) }),
      /another daemon already serves the control socket/,
    );
    assert.equal((await callControl(path, {})).message, "ok", "the first one still answers");
    await server.close();
    const other = join(dir, "file.sock");
    await Deno.writeTextFile(other, "keep me");
    await assert.rejects(
      serveControl({ path: other, handle: () => Promise.resolve({ exit: 0, message: "" }) }),
      /file\.sock is in the way of the control socket and is not a socket/,
    );
    assert.equal(await Deno.readTextFile(other), "keep me");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveControl: a path too long for a Unix socket is refused naming it", async () => {
  const path = `/tmp/${"d".repeat(120)}/poll.sock`;
  await assert.rejects(
    serveControl({ path, handle: () => Promise.resolve({ exit: 0, message: "" }) }),
    (e: Error) =>
      e.message.includes(path) && /more than the 107/.test(e.message) &&
      /shorter path/.test(e.message),
  );
});

Deno.test("callControl: no socket file is NotRunningError", async () => {
  const dir = await tempDir();
  try {
    await assert.rejects(callControl(join(dir, "none.sock"), {}), NotRunningError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveControl: a handler that throws is exit 1 with its message", async () => {
  const dir = await tempDir();
  const path = join(dir, "s.sock");
  const server = await serveControl({
    path,
    handle: () => Promise.reject(new Error("disk on fire")),
  });
  try {
    const r = await callControl(path, {});
    assert.equal(r.exit, 1);
    assert.match(r.message, /disk on fire/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
