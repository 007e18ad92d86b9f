import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { ControlStore } from "../../state/control.ts";
import { RegistryDir, type SessionRecord } from "../../state/registry.ts";
import { parseWorkItem } from "../../state/work_item.ts";
import type { ControlOrigin } from "../seams.ts";
import { SessionControl, SessionStore } from "./mod.ts";

const ITEM = parseWorkItem("github:octo/repo#15")!;
const NOW = new Date("2026-12-01T10:00:00.000Z");
const ALICE: ControlOrigin = {
  source: "comment",
  actor: "alice",
  note: "https://github.com/octo/repo/issues/15#issuecomment-1",
};

function setup(opts: { endHarness?: (s: SessionRecord) => Promise<void> } = {}) {
  const dir = join(Deno.makeTempDirSync({ prefix: "sessions-control-" }), "sessions");
  const events = new MemorySink();
  const store = new SessionStore({ registry: new RegistryDir(dir), events, now: () => NOW });
  const control = new ControlStore(dir);
  const ended: SessionRecord[] = [];
  const warnings: string[] = [];
  const actions = new SessionControl({
    sessions: store,
    control,
    events,
    now: () => NOW,
    warn: (m) => warnings.push(m),
    endHarness: opts.endHarness ?? ((s) => {
      ended.push(s);
      return Promise.resolve();
    }),
  });
  const register = () =>
    store.register({ item: ITEM, harness: "claude", harnessSessionId: "id-1", cwd: "/w" });
  return { store, control, events, actions, ended, warnings, register };
}

Deno.test("start with no session records the start (the next event spawns)", async () => {
  const { actions, control, events } = setup();
  const result = await actions.apply("start", ITEM, ALICE);
  assert.equal(result.status, "applied");
  assert.equal(result.session, undefined);
  assert.deepEqual(await control.get(ITEM.ref), {
    ref: ITEM.ref,
    command: "start",
    source: "comment",
    actor: "alice",
    requestedAt: NOW.toISOString(),
    note: ALICE.note,
  });
  assert.equal(await control.startRequested(ITEM.ref), true);
  assert.deepEqual(
    events.ofType("control.applied").map((r) => [r.work_item, r.command, r.origin, r.actor]),
    [[ITEM.ref, "start", "comment", "alice"]],
  );
});

Deno.test("start on a running session is a no-op: nothing recorded", async () => {
  const { actions, control, events, register } = setup();
  await register();
  const result = await actions.apply("start", ITEM, ALICE);
  assert.equal(result.status, "noop");
  assert.equal(result.recorded, undefined);
  assert.equal(await control.get(ITEM.ref), undefined);
  assert.equal(events.ofType("control.noop").length, 1);
  assert.equal(events.ofType("control.applied").length, 0);
});

Deno.test("pause marks the session paused, resume makes it active again; both are recorded", async () => {
  const { actions, control, store, register } = setup();
  await register();
  const paused = await actions.apply("pause", ITEM, ALICE);
  assert.equal(paused.status, "applied");
  assert.equal((await store.live(ITEM.ref))?.status, "paused", "a paused session is still live");
  assert.equal((await control.get(ITEM.ref))?.command, "pause");
  const resumed = await actions.apply("resume", ITEM, { ...ALICE, actor: "bob" });
  assert.equal(resumed.status, "applied");
  assert.equal((await store.live(ITEM.ref))?.status, "active");
  assert.deepEqual(
    [(await control.get(ITEM.ref))?.command, (await control.get(ITEM.ref))?.actor],
    ["resume", "bob"],
  );
});

Deno.test("start on a paused session resumes it", async () => {
  const { actions, store, control, register } = setup();
  await register();
  await actions.apply("pause", ITEM, ALICE);
  const result = await actions.apply("start", ITEM, ALICE);
  assert.equal(result.status, "applied");
  assert.equal((await store.live(ITEM.ref))?.status, "active");
  assert.equal((await control.get(ITEM.ref))?.command, "start");
});

Deno.test("pause with no session is rejected no-session but still recorded", async () => {
  const { actions, control, events } = setup();
  const result = await actions.apply("pause", ITEM, { ...ALICE, source: "cli" });
  assert.equal(result.status, "rejected");
  assert.equal(result.reason, "no-session");
  assert.equal(result.recorded?.command, "pause");
  assert.equal((await control.get(ITEM.ref))?.command, "pause");
  assert.deepEqual(
    events.ofType("control.rejected").map((r) => [r.reason, r.origin, r.recorded]),
    [["no-session", "cli", true]],
  );
});

Deno.test("resume with nothing paused is rejected nothing-to-resume and records nothing", async () => {
  const { actions, control, events, register } = setup();
  // no session at all
  const none = await actions.apply("resume", ITEM, ALICE);
  assert.deepEqual([none.status, none.reason, none.recorded], [
    "rejected",
    "nothing-to-resume",
    undefined,
  ]);
  assert.equal(await control.get(ITEM.ref), undefined);
  // an active session is not paused either; the earlier stop stays the last command
  await actions.apply("stop", ITEM, ALICE);
  await register();
  const active = await actions.apply("resume", ITEM, ALICE);
  assert.deepEqual([active.status, active.reason], ["rejected", "nothing-to-resume"]);
  assert.equal((await control.get(ITEM.ref))?.command, "stop");
  assert.equal(await control.startRequested(ITEM.ref), false, "a refused resume does not arm");
  assert.deepEqual(events.ofType("control.rejected").map((r) => r.recorded), [false, false]);
});

Deno.test("stop closes the live session, ends its harness and records the stop", async () => {
  const { actions, control, store, events, ended, register } = setup();
  await register();
  await actions.apply("pause", ITEM, ALICE); // a paused session is stopped too
  const result = await actions.apply("stop", ITEM, ALICE);
  assert.equal(result.status, "applied");
  assert.equal(result.session?.status, "closed");
  assert.equal(await store.live(ITEM.ref), undefined);
  assert.equal((await store.get(ITEM.ref))?.status, "closed", "the file is kept");
  assert.deepEqual(ended.map((s) => [s.workItem.ref, s.harnessSessionId]), [[ITEM.ref, "id-1"]]);
  assert.equal((await control.get(ITEM.ref))?.command, "stop");
  assert.deepEqual(events.ofType("session.closed").map((r) => r.reason), ["stop"]);
});

Deno.test("stop with no session is still recorded: it disarms the item", async () => {
  const { actions, control, ended } = setup();
  await actions.apply("start", ITEM, ALICE);
  const result = await actions.apply("stop", ITEM, ALICE);
  assert.equal(result.status, "applied");
  assert.equal(await control.startRequested(ITEM.ref), false);
  assert.equal((await control.get(ITEM.ref))?.command, "stop");
  assert.deepEqual(ended, [], "no harness to end");
});

Deno.test("a harness that will not end is reported; the session is closed anyway", async () => {
  const { actions, store, events, warnings, register } = setup({
    endHarness: () => Promise.reject(new Error("tmux: no server running")),
  });
  await register();
  const result = await actions.apply("stop", ITEM, ALICE);
  assert.equal(result.status, "applied");
  assert.equal((await store.get(ITEM.ref))?.status, "closed");
  assert.deepEqual(
    events.ofType("session.harness_end_failed").map((r) => r.error),
    ["tmux: no server running"],
  );
  assert.match(
    warnings.join("\n"),
    /closed, but ending its harness failed: tmux: no server running/,
  );
});
