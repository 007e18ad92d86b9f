import assert from "node:assert/strict";
import { join } from "node:path";
import { until } from "../async/_test_utils.ts";
import { MemorySink } from "../events/mod.ts";
import { Receiver, type ReceiverOptions } from "./mod.ts";
import { deferred, delivery, RecordingSink, SECRET } from "./_test_utils.ts";

async function start(dir: string, sink: RecordingSink, o: Partial<ReceiverOptions> = {}) {
  const events = new MemorySink({ strict: true });
  const receiver = await Receiver.start({
    hostname: "127.0.0.1",
    port: 0,
    path: "/gh-webhook",
    secret: SECRET,
    sink,
    events,
    inbox: { dir },
    ...o,
  });
  const post = async (opts: Parameters<typeof delivery>[1] = {}) => {
    const res = await fetch(await delivery(receiver.url, opts));
    await res.body?.cancel();
    return res.status;
  };
  /** `/health`'s status and body. */
  const health = async () => {
    const res = await fetch(new URL("/health", receiver.url));
    return { status: res.status, body: await res.json() };
  };
  return { receiver, events, post, health };
}

Deno.test("a 202 is a promise: what was accepted and not routed is replayed at the next start, in order", async () => {
  const dir = await Deno.makeTempDir();
  const held = new RecordingSink();
  held.gate = new Promise(() => {}); // routing never ends: as if the process died
  const a = await start(dir, held);
  const ids = ["d1", "d2", "d3", "d4", "d5"];
  for (const id of ids) assert.equal(await a.post({ deliveryId: id }), 202);
  const report = await a.receiver.stop({ graceMs: 100 });
  assert.equal(report.handedBack.length, 5);
  const sink = new RecordingSink();
  const b = await start(dir, sink);
  await sink.until(5);
  assert.deepEqual(sink.routed.map((e) => e.deliveryId), ids);
  assert.deepEqual(b.events.ofType("webhook.replayed")[0].delivery_ids, ids);
  await b.receiver.stop({ graceMs: 1000 });
  // routed: settled, so nothing comes back a third time
  const third = new RecordingSink();
  const c = await start(dir, third);
  await c.receiver.stop({ graceMs: 1000 });
  assert.equal(third.routed.length, 0);
  assert.equal(c.events.ofType("webhook.replayed").length, 0);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the inbox absorbs a burst past the memory bounds: nothing is refused, all is routed in order", async () => {
  const dir = await Deno.makeTempDir();
  const sink = new RecordingSink();
  const gate = deferred();
  sink.gate = gate.promise;
  const { receiver, post } = await start(dir, sink, { queue: { maxJobs: 2, workers: 1 } });
  try {
    const ids = Array.from({ length: 60 }, (_, i) => `b${i}`);
    const answers = [];
    // one after another, so the arrival order is known (routing one at a time keeps it)
    for (const id of ids) answers.push(await post({ deliveryId: id }));
    assert.deepEqual(answers, ids.map(() => 202));
    gate.resolve();
    await sink.until(60);
    assert.deepEqual(sink.routed.map((e) => e.deliveryId), ids);
  } finally {
    await receiver.stop({ graceMs: 1000 });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a full inbox answers 503 inbox-full", async () => {
  const dir = await Deno.makeTempDir();
  const sink = new RecordingSink();
  sink.gate = new Promise(() => {});
  const { receiver, events, post } = await start(dir, sink, { inbox: { dir, maxBytes: 4096 } });
  try {
    const payload = { action: "created", pad: "x".repeat(1000) };
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await post({ deliveryId: `f${i}`, payload }));
    assert.deepEqual(answers.slice(0, 3), [202, 202, 202]);
    assert.equal(answers.at(-1), 503);
    await until(() => events.ofType("webhook.rejected").length > 0, "webhook.rejected", 10_000);
    assert.equal(events.ofType("webhook.rejected")[0].reason, "inbox-full");
  } finally {
    await receiver.stop({ graceMs: 100 });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an inbox that cannot be written (a full disk) answers 503, never a 202", async () => {
  // the segment the receiver opens is a device that is always full; only --allow-all may open
  // /dev/full, so the receiver runs in a subprocess given it (under the suite's permissions the
  // open itself would fail: the folder-that-cannot-be-made case below, not a failed write)
  const dir = await Deno.makeTempDir();
  const inbox = join(dir, "inbox");
  await Deno.mkdir(inbox);
  await Deno.symlink("/dev/full", join(inbox, "000000000001.seg"));
  const script = join(dir, "run.ts");
  await Deno.writeTextFile(
    script,
    `import { until } from ${JSON.stringify(import.meta.resolve("../async/_test_utils.ts"))};
import { MemorySink } from ${JSON.stringify(import.meta.resolve("../events/mod.ts"))};
import { Receiver } from ${JSON.stringify(import.meta.resolve("./mod.ts"))};
import { delivery, RecordingSink, SECRET } from ${
      JSON.stringify(import.meta.resolve("./_test_utils.ts"))
    };
const events = new MemorySink({ strict: true });
const sink = new RecordingSink();
const receiver = await Receiver.start({
  hostname: "127.0.0.1", port: 0, path: "/gh-webhook", secret: SECRET, sink, events,
  inbox: { dir: ${JSON.stringify(inbox)} },
});
const res = await fetch(await delivery(receiver.url, { deliveryId: "x1" }));
await res.body?.cancel();
await until(() => events.ofType("webhook.rejected").length > 0, "webhook.rejected", 10_000);
const h = await fetch(new URL("/health", receiver.url));
const health = { status: h.status, body: await h.json() };
await receiver.stop({ graceMs: 100 });
console.log(JSON.stringify({
  status: res.status,
  rejected: events.ofType("webhook.rejected")[0]?.reason,
  health,
  inboxFailed: events.ofType("webhook.inbox_failed").length,
  received: events.ofType("webhook.received").length,
  routed: sink.routed.length,
}));
`,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--config",
        new URL("../deno.json", import.meta.url).pathname,
        "--cached-only",
        "--allow-all",
        "--unstable-worker-options",
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(r.status, 503);
    assert.equal(r.rejected, "inbox-failed");
    // the receiver is degraded while the inbox cannot be written, and says why
    assert.equal(r.health.status, 503);
    assert.equal(r.health.body.status, "degraded");
    assert.match(r.health.body.reasons.join("\n"), /the webhook inbox cannot be written/);
    assert.equal(r.inboxFailed, 1);
    assert.equal(r.received, 0);
    assert.equal(r.routed, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a torn last record is skipped with webhook.inbox_torn; the receiver starts and replays the whole ones", async () => {
  const dir = await Deno.makeTempDir();
  const held = new RecordingSink();
  held.gate = new Promise(() => {});
  const a = await start(dir, held);
  for (const id of ["w1", "w2"]) assert.equal(await a.post({ deliveryId: id }), 202);
  await a.receiver.stop({ graceMs: 100 });
  // a crash mid-write: the last record cut short
  const segments = [...Deno.readDirSync(dir)].map((e) => join(dir, e.name)).sort();
  const last = segments.findLast((p) => Deno.statSync(p).size > 0)!;
  Deno.truncateSync(last, Deno.statSync(last).size - 5);
  const sink = new RecordingSink();
  const b = await start(dir, sink);
  try {
    await sink.until(1);
    assert.deepEqual(sink.routed.map((e) => e.deliveryId), ["w1"]);
    await until(
      () => b.events.ofType("webhook.inbox_torn").length > 0,
      "webhook.inbox_torn",
      10_000,
    );
    assert.equal(b.events.ofType("webhook.inbox_torn")[0].reason, "short");
  } finally {
    await b.receiver.stop({ graceMs: 1000 });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an inbox folder that cannot be made answers every delivery 503 and says so", async () => {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "not-a-folder");
  await Deno.writeTextFile(file, "");
  const sink = new RecordingSink();
  const { receiver, events, post, health } = await start(join(file, "inbox"), sink);
  try {
    assert.equal(await post({ deliveryId: "y1" }), 503);
    await until(
      () => events.ofType("webhook.inbox_failed").length > 0,
      "webhook.inbox_failed",
      10_000,
    );
    const h = await health();
    assert.deepEqual([h.status, h.body.status], [503, "degraded"]);
    assert.match(h.body.reasons.join("\n"), /the webhook inbox cannot be opened/);
    assert.equal(sink.routed.length, 0);
  } finally {
    await receiver.stop({ graceMs: 100 });
    await Deno.remove(dir, { recursive: true });
  }
});
