import assert from "node:assert/strict";
import { adapterFor } from "./harness/mod.ts";
import { join } from "node:path";
import { DryRunDispatcher, moveText, readOnlyPositions } from "./dry_run.ts";
import { advance, BUILTIN_LOOPS, complete, enter, LoopStore } from "../loops/mod.ts";
import { defaultTemplates } from "./prompts.ts";
import { closeEvent, comment, setup } from "./_test_utils.ts";

/** A dry run over the rig's real registry, control records, runner and hooks. */
function dryRunOf(t: Awaited<ReturnType<typeof setup>>): DryRunDispatcher {
  return new DryRunDispatcher({
    config: () => t.routing,
    sessions: t.sessions,
    controlStore: t.controlStore,
    runner: t.runner,
    adapterFor,
    hooks: t.hooks,
    events: t.events,
    templates: defaultTemplates(),
    spawnWorkdir: t.dir,
  });
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) names.push(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names.sort();
}

Deno.test("a dry run asks the hooks, renders the prompts, and spawns, posts and writes nothing", async () => {
  await using t = await setup();
  t.hooks.answers.session_spawn = (ctx) => (ctx.prompt = `${ctx.prompt}\n(policy footer)`);
  const dry = dryRunOf(t);
  const start = comment(1, "the-loop:start-execution");
  assert.equal((await dry.dispatch(start)).status, "delivered");
  assert.equal((await dry.dispatch(comment(1, "and fix the docs"))).status, "delivered");
  assert.equal((await dry.dispatch(closeEvent(1))).status, "delivered");
  assert.deepEqual(dry.records.map((r) => r.action), [
    "command",
    "spawn",
    "comment",
    "deliver",
    "close",
    "comment",
  ]);
  const [command, spawn, announcement, deliver] = dry.records;
  assert.deepEqual([command.command, command.status, command.deliveryId], [
    "start",
    "applied",
    start.deliveryId,
  ]);
  assert.match(spawn.prompt!, /\/the-loop:work-on github:octo\/repo#1[\s\S]*\(policy footer\)$/);
  assert.match(announcement.text!, /tmux attach -t loop-github-octo-repo-1/);
  assert.match(deliver.prompt!, /and fix the docs/);
  assert.deepEqual(t.hooks.points().slice(0, 4), [
    "input_received",
    "work_item_start",
    "session_spawn",
    "session_spawned",
  ]);
  // nothing was done
  assert.equal(t.runner.calls.length, 0);
  assert.equal(t.github.comments.length + t.github.reactions.length, 0);
  assert.deepEqual(await listing(t.registryDir), []);
});

Deno.test("a dry run reads the real registry and control records", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, "the-loop:start-execution"));
  const before = await listing(t.registryDir);
  const dry = dryRunOf(t);
  const again = comment(1, "more");
  await dry.dispatch(again);
  await dry.dispatch(comment(2, "nobody started me"));
  assert.deepEqual(dry.records.map((r) => `${r.action} ${r.workItem}`), [
    "deliver github:octo/repo#1",
  ]);
  assert.equal(t.runner.calls.length, 1, "only the real spawn before the dry run");
  assert.deepEqual(await listing(t.registryDir), before);
  assert.equal(await t.sessions.hasDelivery("github:octo/repo#1", again.deliveryId), false);
});

Deno.test("a dry run shows the loop transitions a cycle would make, and writes no position", async () => {
  await using t = await setup();
  const dir = join(t.dir, "loops");
  const store = new LoopStore({ dir });
  // #2 waits at adhoc's review (on disk); #1 enters its loop at the spawn
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  const now = new Date("2026-12-01T10:00:00.000Z");
  const entered = enter(adhoc, { ref: "github:octo/repo#2", now }).position;
  const atReview = advance(adhoc, entered, { outcome: "done", kind: "agent", by: "agent", now });
  await store.put(atReview.position);
  const onDisk = await Deno.readTextFile(store.pathOf("github:octo/repo#2"));
  const dry = new DryRunDispatcher({
    config: () => t.routing,
    sessions: t.sessions,
    controlStore: t.controlStore,
    runner: t.runner,
    adapterFor,
    hooks: t.hooks,
    events: t.events,
    templates: defaultTemplates(),
    spawnWorkdir: t.dir,
    loops: () => BUILTIN_LOOPS,
    positions: readOnlyPositions(dir),
  });
  await dry.dispatch(comment(1, "the-loop:start-execution loop=pdlc"));
  await dry.dispatch(comment(2, "the-loop:approve"));
  const moves = dry.records.filter((r) => r.action === "move");
  assert.deepEqual(moves.map((r) => [r.workItem, r.text]), [
    ["github:octo/repo#1", "enter pdlc at requirements"],
    ["github:octo/repo#2", "resolve review with approve → done"],
  ]);
  assert.match(
    dry.records.find((r) => r.action === "spawn")!.prompt!,
    /stands at node `requirements`/,
  );
  // nothing written: #2's file as it was, none for #1
  assert.equal(await Deno.readTextFile(store.pathOf("github:octo/repo#2")), onDisk);
  assert.deepEqual(await listing(dir), ["github-octo-repo-2.json"]);
  assert.equal(t.github.comments.length + t.runner.calls.length, 0);
});

Deno.test("moveText says each kind of move in words", () => {
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  const now = new Date("2026-12-01T10:00:00.000Z");
  const a = enter(adhoc, { ref: "github:octo/repo#3", now });
  assert.equal(moveText(undefined, a.position), "enter adhoc at work");
  const b = advance(adhoc, a.position, { outcome: "done", kind: "agent", by: "agent", now });
  assert.equal(moveText(a.position, b.position), "advance work with done → review");
  const c = complete(adhoc, b.position, { by: "alice", now });
  assert.equal(
    moveText(b.position, c.position),
    "complete adhoc at done (the item closed at review)",
  );
  // a walk done before the close: only the close is recorded
  const d = advance(adhoc, b.position, { outcome: "approve", kind: "gate", by: "alice", now });
  const e = complete(adhoc, d.position, { by: "alice", now });
  assert.equal(
    moveText(d.position, e.position),
    "record the close of adhoc (its walk already done at done)",
  );
});
