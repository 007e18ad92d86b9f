import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { Receiver, type ReceiverOptions } from "./mod.ts";
import { deferred, delivery, RecordingSink, SECRET, sign } from "./_test_utils.ts";

async function start(sink = new RecordingSink(), queue?: ReceiverOptions["queue"]) {
  const events = new MemorySink({ strict: true });
  const receiver = await Receiver.start({
    hostname: "127.0.0.1",
    port: 0,
    path: "/gh-webhook",
    secret: SECRET,
    sink,
    events,
    queue,
  });
  const post = async (opts: Parameters<typeof delivery>[1] = {}) => {
    const res = await fetch(await delivery(receiver.url, opts));
    return { status: res.status, body: await res.json() };
  };
  return { receiver, sink, events, post };
}

Deno.test("port 0 binds a free port; the url names it and the path", async () => {
  const { receiver, events } = await start();
  try {
    assert.ok(receiver.addr.port > 0);
    assert.equal(receiver.url, `http://127.0.0.1:${receiver.addr.port}/gh-webhook`);
    const res = await fetch(`http://127.0.0.1:${receiver.addr.port}/healthz`);
    assert.deepEqual(await res.json(), { status: "ok" });
    const [started] = events.ofType("webhook.started");
    assert.deepEqual([started.url, started.verified, started.routing], [receiver.url, true, true]);
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("a slow route never delays the 202; the delivery is routed once the route is free", async () => {
  const sink = new RecordingSink();
  const gate = deferred();
  sink.gate = gate.promise;
  const { receiver, post } = await start(sink);
  try {
    // the route is held until after every answer arrived: a 202 that waited would never come
    const answers = await Promise.all([1, 2, 3].map((n) => post({ deliveryId: `d${n}` })));
    assert.deepEqual(answers.map((a) => a.status), [202, 202, 202]);
    assert.equal(sink.routed.length, 0);
    gate.resolve();
    await sink.until(3);
    assert.deepEqual(sink.routed.map((e) => e.deliveryId).sort(), ["d1", "d2", "d3"]);
    // each says when the receiver took it: before its routing began (what it reads for it, the
    // config, need be no newer)
    for (const e of sink.routed) assert.ok(e.receivedAt! > 0 && e.receivedAt! < performance.now());
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("a route that throws still got its 202, is logged, and the receiver routes the next one", async () => {
  const sink = new RecordingSink();
  sink.fail = (e) => e.deliveryId === "boom";
  const { receiver, events, post } = await start(sink);
  try {
    assert.equal((await post({ deliveryId: "boom" })).status, 202);
    assert.equal((await post({ deliveryId: "fine" })).status, 202);
    await sink.until(1);
    assert.deepEqual(sink.routed.map((e) => e.deliveryId), ["fine"]);
    const [failed] = events.ofType("webhook.route_failed");
    assert.deepEqual([failed.delivery_id, failed.error], ["boom", "route of boom blew up"]);
    const res = await fetch(`http://127.0.0.1:${receiver.addr.port}/health`);
    assert.equal(res.status, 200);
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("an invalid-signature flood, a 30 MB body and a non-JSON body leave the receiver up and routing", async () => {
  const { receiver, sink, post } = await start();
  try {
    const flood = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post({ secret: `wrong-${i}` })),
    );
    assert.ok(flood.every((r) => r.status === 401));
    const big = new Uint8Array(30_000_000).fill(0x20);
    const res = await fetch(receiver.url, {
      method: "POST",
      headers: { "x-github-event": "issues", "content-type": "application/json" },
      body: big,
    });
    assert.deepEqual([res.status, await res.json()], [413, { status: "payload too large" }]);
    assert.equal((await post({ body: "<html>not json</html>" })).status, 400);
    assert.equal((await post({ deliveryId: "good" })).status, 202);
    await sink.until(1);
    assert.deepEqual(sink.routed.map((e) => e.deliveryId), ["good"]);
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("stop hands back deliveries whose routing did not finish in the grace time", async () => {
  const sink = new RecordingSink();
  const never = deferred();
  sink.gate = never.promise;
  const { receiver, events, post } = await start(sink);
  assert.equal((await post({ deliveryId: "stuck" })).status, 202);
  const report = await receiver.stop({ graceMs: 100 });
  assert.deepEqual(report.handedBack, ["stuck"]);
  const [stopped] = events.ofType("webhook.stopped");
  assert.deepEqual([stopped.handed_back, stopped.handed_back_delivery_ids, stopped.level], [
    1,
    ["stuck"],
    "warning",
  ]);
  never.resolve();
});

Deno.test("stop when idle hands nothing back and closes the port", async () => {
  const { receiver, events } = await start();
  const port = receiver.addr.port;
  const report = await receiver.stop({ graceMs: 5000 });
  assert.deepEqual(report, { requestsFinished: true, routed: 0, handedBack: [] });
  assert.equal(events.ofType("webhook.stopped")[0].level, "info");
  await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
});

Deno.test("a 30 MB chunked body over HTTP is refused, and the receiver carries on", async () => {
  const { receiver, sink, post } = await start();
  try {
    const total = 30_000_000;
    const chunk = 256 * 1024;
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= total) return c.close();
        pulled += chunk;
        c.enqueue(new Uint8Array(chunk).fill(0x20));
      },
    });
    const status = await fetch(receiver.url, {
      method: "POST",
      headers: { "x-github-event": "issues" },
      body,
    }).then(async (res) => {
      await res.body?.cancel();
      return res.status;
    }, (error) => `connection error: ${error}`);
    // the receiver answers 413 and closes; a sender still writing may see the close instead
    assert.ok(status === 413 || String(status).startsWith("connection error"), String(status));
    // (how much the server reads is shown exactly by the handler's test; over HTTP the client
    // buffers what it pulls, so its count says nothing about the server)
    assert.equal((await post({ deliveryId: "after" })).status, 202);
    await sink.until(1);
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("the queue's bounds hold across the threads: 503 when full, room again once routed", async () => {
  const sink = new RecordingSink();
  const gate = deferred();
  sink.gate = gate.promise;
  // one delivery routing, one waiting: the third is refused at once, with Retry-After
  const { receiver, events, post } = await start(sink, { workers: 1, maxJobs: 1 });
  try {
    assert.equal((await post({ deliveryId: "d1" })).status, 202);
    assert.equal((await post({ deliveryId: "d2" })).status, 202);
    const res = await fetch(await delivery(receiver.url, { deliveryId: "d3" }));
    assert.deepEqual([res.status, res.headers.get("retry-after")], [503, "30"]);
    await res.body?.cancel();
    gate.resolve();
    await sink.until(2);
    assert.equal((await post({ deliveryId: "d4" })).status, 202, "routed deliveries free room");
    await sink.until(3);
    assert.deepEqual(sink.routed.map((e) => e.deliveryId), ["d1", "d2", "d4"]);
    const [busy] = events.ofType("webhook.rejected");
    assert.deepEqual([busy.reason, busy.delivery_id], ["queue-full", "d3"]);
    // the records of the intake thread arrive in order, each accepted delivery's before its route
    assert.deepEqual(events.ofType("webhook.received").map((r) => r.delivery_id), [
      "d1",
      "d2",
      "d4",
    ]);
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("the queue's byte bound: a body that would pass it waits for room (503)", async () => {
  const sink = new RecordingSink();
  const gate = deferred();
  sink.gate = gate.promise;
  const { receiver, post } = await start(sink, { workers: 1, maxBytes: 1000 });
  try {
    const big = { action: "created", text: "x".repeat(700) };
    assert.equal((await post({ deliveryId: "a", payload: big })).status, 202, "alone: let through");
    assert.equal((await post({ deliveryId: "b", payload: big })).status, 503);
    assert.equal((await post({ deliveryId: "c" })).status, 202, "a small one still fits");
    gate.resolve();
    await sink.until(2);
    assert.equal((await post({ deliveryId: "d", payload: big })).status, 202);
    await sink.until(3);
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});

Deno.test("a port in use rejects with the bind error's own class", async () => {
  using held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  await assert.rejects(
    Receiver.start({
      hostname: "127.0.0.1",
      port: held.addr.port,
      path: "/gh-webhook",
      events: new MemorySink(),
    }),
    Deno.errors.AddrInUse,
  );
});

Deno.test("a chunked delivery within the cap is read whole, in one buffer, and routed as sent", async () => {
  const { receiver, sink } = await start();
  try {
    const text = JSON.stringify({ action: "created", filler: "x".repeat(200_000) });
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= bytes.length) return c.close();
        c.enqueue(bytes.slice(at, at += 7_777)); // uneven chunks
      },
    });
    const res = await fetch(receiver.url, {
      method: "POST",
      headers: {
        "x-github-event": "issues",
        "x-github-delivery": "chunked",
        "x-hub-signature-256": await sign(bytes),
      },
      body,
    });
    assert.equal(res.status, 202);
    await res.body?.cancel();
    await sink.until(1);
    assert.deepEqual(sink.routed[0].payload, JSON.parse(text));
  } finally {
    await receiver.stop({ graceMs: 1000 });
  }
});
