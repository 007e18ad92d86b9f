import assert from "node:assert/strict";
import type { Channel, Collaborator } from "../config/mod.ts";
import { emitAll, type EventRecord, MemorySink } from "../events/mod.ts";
import { Notifier, type NotifierConfig } from "./mod.ts";
import { endpoint, slackChannel, webhookChannel } from "./_test_utils.ts";

const ITEM = "github:octo/repo#12";
const GATE = { work_item: ITEM, loop: "pdlc", node: "review", comment_url: null };

function person(channels: Channel[], over: Partial<Collaborator> = {}): Collaborator {
  return {
    handle: "@me",
    kind: "individual",
    roles: ["engineer"],
    notifications: { enabled: true, channels },
    ...over,
  };
}

function configOf(
  collaborators: Collaborator[],
  events: Partial<NotifierConfig["notifications"]["events"]> = { "gate-waiting": ["engineer"] },
  enabled = true,
): NotifierConfig {
  const none = {
    "work-item-spawned": [],
    "dispatch-failed": [],
    "session-died": [],
    "event-dropped-unauthorized": [],
    "phase-changed": [],
    "question-asked": [],
    "gate-waiting": [],
    "hook-suspended": [],
    "suspension-escalated": [],
  };
  return { collaborators, notifications: { enabled, events: { ...none, ...events } } };
}

/** A strict memory sink that can be waited on for a record. */
class Watched extends MemorySink {
  #waiters: { match: (r: EventRecord) => boolean; resolve: (r: EventRecord) => void }[] = [];
  constructor() {
    super({ strict: true });
  }
  override emit(...args: Parameters<MemorySink["emit"]>): void {
    super.emit(...args);
    const r = this.records.at(-1)!;
    this.#waiters = this.#waiters.filter((w) => !(w.match(r) && (w.resolve(r), true)));
  }
  /** Resolves with the first record (already emitted or to come) that `match`es. */
  next(match: (r: EventRecord) => boolean): Promise<EventRecord> {
    const seen = this.records.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }
}

Deno.test("a hanging channel delays nothing: observe returns at once, the other channel is sent", async () => {
  const hung = endpoint();
  const fine = endpoint();
  const release = Promise.withResolvers<void>();
  hung.hold = release.promise;
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([
      webhookChannel({ name: "hung", url: hung.url }),
      webhookChannel({ name: "fine", url: fine.url }),
    ])]),
    events,
    env: () => undefined,
  });
  try {
    const inner = new MemorySink();
    const sink = notifier.tap(inner);
    const arrived = hung.arrival();
    const returned = sink.emit("loop.gate_waiting", GATE);
    // emit came back synchronously: the record is in the inner sink, and nothing was sent yet
    assert.equal(returned, undefined);
    assert.equal(inner.ofType("loop.gate_waiting").length, 1);
    assert.equal(hung.taken.length + fine.taken.length, 0);
    const sent = await events.next((r) => r.event === "notify.sent" && r.channel === "fine");
    assert.equal(sent.status, 200);
    await arrived; // it is under way, and hangs
    assert.equal(hung.taken.length, 1);
    // still hanging: a second record is taken at once too, queued behind the first
    notifier.observe("loop.gate_waiting", GATE);
    assert.equal(events.ofType("notify.sent").length, 1);
    assert.equal(events.records.some((r) => r.channel === "hung"), false);
  } finally {
    release.resolve();
    await notifier.idle();
    await hung.close();
    await fine.close();
  }
  assert.equal(events.ofType("notify.sent").filter((r) => r.channel === "hung").length, 2);
});

Deno.test("a 500 is retried 3 times, each attempt a notify.failed, the last will_retry false", async () => {
  const ep = endpoint(500);
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([webhookChannel({ url: ep.url })])]),
    events,
    env: () => undefined,
    retryDelaysMs: [0, 0, 0],
  });
  notifier.observe("loop.gate_waiting", GATE);
  await notifier.idle();
  await ep.close();
  assert.equal(ep.taken.length, 4);
  const failed = events.ofType("notify.failed");
  assert.deepEqual(failed.map((r) => [r.attempts, r.will_retry, r.status]), [
    [1, true, 500],
    [2, true, 500],
    [3, true, 500],
    [4, false, 500],
  ]);
  assert.equal(failed[0].level, "warning");
  assert.equal(failed[0].notification, "gate-waiting");
  assert.equal(failed[0].work_item, ITEM);
  assert.equal(events.ofType("notify.sent").length, 0);
});

Deno.test("a full backlog drops the oldest, with notify.dropped", async () => {
  const ep = endpoint();
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([webhookChannel({ url: ep.url })])]),
    events,
    env: () => undefined,
    backlog: 2,
  });
  for (const n of [1, 2, 3, 4]) {
    notifier.observe("loop.gate_waiting", { ...GATE, work_item: `github:octo/repo#${n}` });
  }
  await notifier.idle();
  await ep.close();
  assert.deepEqual(
    events.ofType("notify.dropped").map((r) => [r.work_item, r.reason, r.channel]),
    [["github:octo/repo#1", "backlog-full", "hook"], [
      "github:octo/repo#2",
      "backlog-full",
      "hook",
    ]],
  );
  assert.deepEqual(ep.taken.map((t) => JSON.parse(t.text).work_item), [
    "github:octo/repo#3",
    "github:octo/repo#4",
  ]);
});

Deno.test("no secret and no URL path in any event, sent or failed", async () => {
  const ok = endpoint();
  const bad = endpoint(500);
  const secret = "whsec-VERY-SECRET-value";
  const slackPath = "/services/T000/B000/SLACKTOKENXYZ";
  const hookPath = "/in/PATHTOKEN123?k=QUERYTOKEN456";
  const vars: Record<string, string> = {
    THE_LOOP_SLACK_WEBHOOK_URL: `${ok.url}${slackPath}`,
    HOOK_SECRET: secret,
  };
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([
      slackChannel(),
      webhookChannel({ url: `${bad.url}${hookPath}`, secretEnv: "HOOK_SECRET" }),
    ])]),
    events,
    env: (n) => vars[n],
    retryDelaysMs: [0],
  });
  notifier.observe("loop.gate_waiting", GATE);
  await notifier.idle();
  const tested = await notifier.test();
  await ok.close();
  await bad.close();
  assert.equal(events.ofType("notify.sent").length, 2); // the event, and the test
  assert.equal(events.ofType("notify.failed").length, 3);
  const text = JSON.stringify(events.records) + JSON.stringify(tested);
  for (const s of [secret, "SLACKTOKENXYZ", "PATHTOKEN123", "QUERYTOKEN456", slackPath]) {
    assert.ok(!text.includes(s), `${s} leaked: ${text}`);
  }
});

Deno.test("routing: by role, each channel once; disabled collaborators and channels skipped", async () => {
  const ep = endpoint();
  const events = new Watched();
  const shared = webhookChannel({ name: "shared", url: ep.url });
  const config = configOf([
    person([shared], { roles: ["engineer", "approver"] }),
    person([webhookChannel({ name: "off", url: ep.url, enabled: false })], { handle: "@b" }),
    person([webhookChannel({ name: "muted", url: ep.url })], {
      handle: "@c",
      notifications: { enabled: false, channels: [webhookChannel({ name: "m", url: ep.url })] },
    }),
    person([webhookChannel({ name: "ops", url: ep.url })], { handle: "@d", roles: ["ops"] }),
  ], { "gate-waiting": ["engineer", "approver"], "work-item-spawned": [] });
  const notifier = new Notifier({ config, events, env: () => undefined });
  notifier.observe("loop.gate_waiting", GATE);
  notifier.observe("session.spawned", { work_item: ITEM }); // routed to no role: nobody
  notifier.observe("routing.routed", { work_item: ITEM }); // not a notification
  await notifier.idle();
  assert.deepEqual(events.records.map((r) => [r.event, r.channel]), [["notify.sent", "shared"]]);
  // hot reload: the new routing applies to the next record
  notifier.reconfigure(configOf(config.collaborators, { "gate-waiting": ["ops"] }));
  notifier.observe("loop.gate_waiting", GATE);
  await notifier.idle();
  assert.deepEqual(events.records.map((r) => r.channel), ["shared", "ops"]);
  // the master switch off: nothing enqueued, nothing emitted
  notifier.reconfigure(configOf(config.collaborators, { "gate-waiting": ["ops"] }, false));
  notifier.observe("loop.gate_waiting", GATE);
  await notifier.idle();
  await ep.close();
  assert.equal(events.records.length, 2);
  assert.equal(ep.taken.length, 2);
});

Deno.test("a send past its budget fails and is retried; close aborts what is under way", async () => {
  const ep = endpoint();
  const release = Promise.withResolvers<void>();
  ep.hold = release.promise;
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([webhookChannel({ url: ep.url })])]),
    events,
    env: () => undefined,
    timeoutMs: 20,
    retryDelaysMs: [0],
  });
  try {
    notifier.observe("loop.gate_waiting", GATE);
    const first = await events.next((r) => r.event === "notify.failed");
    assert.equal(first.error, "no answer within 20 ms (timeoutSeconds)");
    assert.equal(first.will_retry, true);
    await notifier.idle();
    assert.deepEqual(events.ofType("notify.failed").map((r) => r.will_retry), [true, false]);
    // closing: what waits is dropped, what is under way is aborted, nothing more is taken
    const slow = new Notifier({
      config: configOf([person([webhookChannel({ url: ep.url, timeoutSeconds: 300 })])]),
      events,
      env: () => undefined,
    });
    slow.observe("loop.gate_waiting", GATE);
    slow.observe("loop.gate_waiting", { ...GATE, work_item: "github:octo/repo#13" });
    await slow.close(0);
    slow.observe("loop.gate_waiting", GATE);
    await slow.idle();
    const dropped = events.ofType("notify.dropped");
    assert.deepEqual(dropped.map((r) => [r.work_item, r.reason]), [[
      "github:octo/repo#13",
      "closed",
    ]]);
    assert.equal(events.ofType("notify.failed").at(-1)!.will_retry, false);
  } finally {
    release.resolve();
    await ep.close();
  }
});

Deno.test("test(): a test envelope on each enabled channel, or the one named", async () => {
  const ok = endpoint();
  const bad = endpoint(500);
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([
      webhookChannel({ name: "a", url: ok.url }),
      webhookChannel({ name: "b", url: bad.url }),
      webhookChannel({ name: "c", url: ok.url, enabled: false }),
    ])], {}),
    events,
    env: () => undefined,
  });
  const all = await notifier.test();
  assert.deepEqual(all.map((r) => [r.channel, r.ok, r.status]), [["a", true, 200], [
    "b",
    false,
    500,
  ]]);
  const named = await notifier.test("c");
  assert.deepEqual(named.map((r) => [r.channel, r.ok]), [["c", true]]);
  await assert.rejects(() => notifier.test("nope"), /no channel is named "nope"/);
  await ok.close();
  await bad.close();
  assert.equal(JSON.parse(ok.taken[0].text).event, "test");
});

Deno.test("tap: a batch is forwarded as a batch and observed; a notifier problem never reaches the emitter", async () => {
  const ep = endpoint();
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([webhookChannel({ url: ep.url })])]),
    events,
    env: () => undefined,
  });
  const batches: number[] = [];
  const inner = new MemorySink();
  const sink = notifier.tap({
    emit: (e, f, o) => inner.emit(e, f, o),
    emitBatch: (list) => {
      batches.push(list.length);
      for (const e of list) inner.emit(e.event, e.fields);
    },
  });
  emitAll(sink, [
    { event: "loop.gate_waiting", fields: GATE },
    { event: "routing.routed", fields: { work_item: ITEM } },
  ]);
  assert.deepEqual(batches, [2]);
  // fields that do not serialize, a config missing its events: still no throw
  const cyclic: Record<string, unknown> = { work_item: ITEM };
  cyclic.self = cyclic;
  sink.emit("loop.gate_waiting", cyclic);
  notifier.reconfigure({ collaborators: [], notifications: { enabled: true } } as never);
  sink.emit("loop.gate_waiting", GATE);
  await notifier.idle();
  await ep.close();
  assert.equal(inner.records.length, 4);
  assert.equal(ep.taken.length, 2); // the batch's gate, and the cyclic one (without details)
  assert.deepEqual(JSON.parse(ep.taken[1].text).details, {});
});

Deno.test("a slack channel-list is retried per listed channel: a retry never posts twice", async () => {
  const ep = endpoint();
  const events = new Watched();
  const notifier = new Notifier({
    config: configOf([person([slackChannel({ config: { "channel-list": ["#a", "#b"] } })])]),
    events,
    env: (n) => n === "THE_LOOP_SLACK_WEBHOOK_URL" ? `${ep.url}/s` : undefined,
    retryDelaysMs: [0],
  });
  ep.statuses = [200, 500]; // #a goes through, #b fails once, then goes through
  notifier.observe("loop.gate_waiting", GATE);
  await notifier.idle();
  await ep.close();
  assert.deepEqual(ep.taken.map((t) => JSON.parse(t.text).channel), ["#a", "#b", "#b"]);
  assert.deepEqual(events.records.map((r) => r.event), [
    "notify.sent",
    "notify.failed",
    "notify.sent",
  ]);
});
