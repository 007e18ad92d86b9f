import assert from "node:assert/strict";
import { envelopeOf, NOTIFY_EVENTS, NOTIFYING_TYPES } from "./mod.ts";
import { EVENT_TYPES } from "../events/mod.ts";

const NOW = new Date("2026-07-22T10:00:00.000Z");
const ITEM = "github:octo/repo#12";

/** [record type, fields, the notification it raises (undefined: none)]. */
const TABLE: [string, Record<string, unknown>, string | undefined][] = [
  ["session.spawned", { work_item: ITEM, harness: "claude" }, "work-item-spawned"],
  ["dispatch.failed", { work_item: ITEM, stage: "spawn", will_retry: false }, "dispatch-failed"],
  ["dispatch.failed", { work_item: ITEM, stage: "spawn", will_retry: true }, undefined],
  ["dispatch.failed", { work_item: ITEM, stage: "respawn", will_retry: true }, "session-died"],
  ["poll.spawn_failed", { work_item: ITEM, attempts: 3, reason: "x" }, "dispatch-failed"],
  ["session.respawned", { work_item: ITEM, resumed: true }, "session-died"],
  [
    "routing.dropped",
    { reason: "unauthorized-actor", actor: "mallory", work_items: [ITEM] },
    "event-dropped-unauthorized",
  ],
  ["routing.dropped", { reason: "duplicate-delivery", work_items: [ITEM] }, undefined],
  ["poll.unauthorized", { work_item: ITEM, actor: "mallory" }, "event-dropped-unauthorized"],
  [
    "loop.entered",
    { work_item: ITEM, loop: "pdlc", node: "design", notified: true },
    "phase-changed",
  ],
  ["loop.entered", { work_item: ITEM, notified: false }, undefined],
  ["loop.advanced", { work_item: ITEM, from: "a", to: "b", notified: true }, "phase-changed"],
  ["loop.advanced", { work_item: ITEM, from: "a", to: "b", notified: false }, undefined],
  ["loop.completed", { work_item: ITEM, notified: true }, "phase-changed"],
  ["loop.completed", { work_item: ITEM, notified: false }, undefined],
  ["session.awaiting_input", { work_item: ITEM, question: "q?", summary: "s" }, "question-asked"],
  ["loop.gate_waiting", { work_item: ITEM, node: "review", comment_url: null }, "gate-waiting"],
  ["hooks.suspended", { work_item: ITEM, hook: "h", point: "p", error: "e" }, "hook-suspended"],
  ["hooks.suspension_escalated", { work_item: ITEM, hook: "h" }, "suspension-escalated"],
  ["routing.routed", { work_item: ITEM }, undefined],
  ["no.such_event", {}, undefined],
];

Deno.test("envelopeOf: each record type raises its notification, or none", () => {
  for (const [type, fields, want] of TABLE) {
    assert.equal(envelopeOf(type, fields, NOW)?.event, want, `${type} ${JSON.stringify(fields)}`);
  }
  // every notification is raised by some row, and every notifying type is in the table
  for (const event of NOTIFY_EVENTS) assert.ok(TABLE.some((r) => r[2] === event), event);
  for (const type of NOTIFYING_TYPES) assert.ok(TABLE.some((r) => r[0] === type), type);
});

Deno.test("envelopeOf: the fields it reads exist in the catalog's types", () => {
  // hooks.suspended / hooks.suspension_escalated are added to the catalog by the hooks work
  for (const type of NOTIFYING_TYPES.filter((t) => !t.startsWith("hooks."))) {
    assert.ok(Object.hasOwn(EVENT_TYPES, type), type);
  }
  assert.ok("notified" in EVENT_TYPES["loop.entered"].fields);
  assert.ok("notified" in EVENT_TYPES["loop.advanced"].fields);
  assert.ok("notified" in EVENT_TYPES["loop.completed"].fields);
  assert.ok("will_retry" in EVENT_TYPES["dispatch.failed"].fields);
  assert.ok("summary" in EVENT_TYPES["session.awaiting_input"].fields);
});

Deno.test("envelopeOf: the envelope's fields, the item's URL, or the comment's", () => {
  const e = envelopeOf("session.spawned", { work_item: ITEM, harness: "claude" }, NOW)!;
  assert.deepEqual(e, {
    event: "work-item-spawned",
    work_item: ITEM,
    summary: "github:octo/repo#12: a claude session was spawned",
    url: "https://github.com/octo/repo/issues/12",
    ts: "2026-07-22T10:00:00.000Z",
    details: { work_item: ITEM, harness: "claude" },
  });
  const gate = envelopeOf("loop.gate_waiting", {
    work_item: ITEM,
    comment_url: "https://github.com/octo/repo/issues/12#issuecomment-9",
  }, NOW)!;
  assert.equal(gate.url, "https://github.com/octo/repo/issues/12#issuecomment-9");
  const none = envelopeOf(
    "routing.dropped",
    { reason: "unauthorized-actor", work_items: [] },
    NOW,
  )!;
  assert.equal(none.work_item, null);
  assert.equal(none.url, null);
});

Deno.test("envelopeOf: a question's summary is its summary, else the question on one line", () => {
  const s = envelopeOf("session.awaiting_input", {
    work_item: ITEM,
    question: "which DB?\nPostgres or SQLite",
    summary: "pick the DB",
  }, NOW)!;
  assert.equal(s.summary, "github:octo/repo#12: the agent asks: pick the DB");
  const q = envelopeOf("session.awaiting_input", {
    work_item: ITEM,
    question: "which DB?\nPostgres\x1b[2J or SQLite",
    summary: "",
  }, NOW)!;
  assert.equal(
    q.summary,
    "github:octo/repo#12: the agent asks: which DB? Postgres\\e[2J or SQLite",
  );
});

Deno.test("envelopeOf: details are scrubbed like the event log", () => {
  const e = envelopeOf("dispatch.failed", {
    work_item: ITEM,
    stage: "spawn",
    will_retry: false,
    error: "bad ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    token: "plain",
  }, NOW)!;
  const text = JSON.stringify(e);
  assert.ok(!text.includes("abcdefghijklmnop"), text);
  assert.equal(e.details.token, "[redacted]");
});
