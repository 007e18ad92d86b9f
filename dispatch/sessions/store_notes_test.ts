import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { RegistryDir } from "../../state/registry.ts";
import { parseWorkItem } from "../../state/work_item.ts";
import { SessionStore } from "./mod.ts";

const ITEM = parseWorkItem("github:octo/repo#7")!;
const NOW = new Date("2026-12-01T10:00:00.000Z");

async function setup() {
  const dir = join(Deno.makeTempDirSync({ prefix: "sessions-notes-" }), "sessions");
  const registry = new RegistryDir(dir);
  const store = new SessionStore({ registry, events: new MemorySink(), now: () => NOW });
  await store.register({ item: ITEM, harness: "claude", harnessSessionId: "h", cwd: "/w" });
  const file = join(dir, "github-octo-repo-7.json");
  const log = join(dir, "github-octo-repo-7.deliveries.jsonl");
  const onDisk = () => JSON.parse(Deno.readTextFileSync(file));
  const logLines = () => Deno.readTextFileSync(log).split("\n").filter((l) => l !== "");
  return { dir, registry, store, file, log, onDisk, logLines };
}

Deno.test("a delivery's note is a line in the session's deliveries log; the file stays as it was", async () => {
  const t = await setup();
  const inode = Deno.statSync(t.file).ino;
  await t.store.touch(ITEM.ref, ["a", "b"]);
  await t.store.touch(ITEM.ref, "c");
  assert.equal(Deno.statSync(t.file).ino, inode, "the file was not rewritten");
  assert.deepEqual(t.onDisk().recentDeliveries, []);
  const rev = t.onDisk().rev;
  assert.deepEqual(t.logLines().map((l) => JSON.parse(l)), [
    { at: NOW.toISOString(), ids: ["a", "b"], rev },
    { at: NOW.toISOString(), ids: ["c"], rev },
  ]);
  // every reader sees the two together
  const live = (await t.store.live(ITEM.ref))!;
  assert.deepEqual(live.recentDeliveries, ["a", "b", "c"]);
  assert.equal(live.lastEventAt, NOW.toISOString());
  assert.deepEqual((await t.store.list())[0].recentDeliveries, ["a", "b", "c"]);
  assert.deepEqual(await t.store.lookup(ITEM.ref, "b"), { duplicate: true, live });
  const other = new RegistryDir(t.dir, { warn: (m) => assert.fail(m) });
  assert.deepEqual(await other.listLive(), [live], "another process too; the log is no session");
});

Deno.test("the next write of the file takes the log's notes in and empties the log", async () => {
  const t = await setup();
  await t.store.touch(ITEM.ref, ["a", "b"]);
  await t.store.update(ITEM.ref, { status: "paused" });
  assert.deepEqual(t.onDisk().recentDeliveries, ["a", "b"]);
  assert.equal(t.onDisk().lastEventAt, NOW.toISOString());
  assert.equal(t.onDisk().status, "paused");
  assert.deepEqual(t.logLines(), []);
  await t.store.touch(ITEM.ref, "a"); // a repeat moves to the end, also across the fold
  assert.deepEqual((await t.store.get(ITEM.ref))!.recentDeliveries, ["b", "a"]);
});

Deno.test("a log grown past its bound is folded into the file at the next note", async () => {
  const t = await setup();
  const inode = Deno.statSync(t.file).ino;
  let n = 0;
  do {
    await t.store.touch(ITEM.ref, [`d${n++}`, `d${n++}`]);
    assert.ok(n < 10_000, "never folded");
  } while (Deno.statSync(t.log).size > 0);
  assert.notEqual(Deno.statSync(t.file).ino, inode, "the file was rewritten");
  assert.ok(n > 20, `folded after ${n / 2} notes (at a bound of some KiB), not at each`);
  const folded = t.onDisk().recentDeliveries;
  assert.equal(folded.at(-1), `d${n - 1}`, "the file holds the last note");
  assert.deepEqual((await t.store.live(ITEM.ref))!.recentDeliveries, folded);
});

Deno.test("a note cut short by a crash is skipped and takes no later note with it", async () => {
  const t = await setup();
  await t.store.touch(ITEM.ref, "a");
  Deno.writeTextFileSync(t.log, '{"at":"2026-12-01T10:00:00.000Z","ids":["tor', { append: true });
  assert.deepEqual((await t.store.live(ITEM.ref))!.recentDeliveries, ["a"]);
  await t.store.touch(ITEM.ref, "b");
  assert.deepEqual((await t.store.live(ITEM.ref))!.recentDeliveries, ["a", "b"]);
});

Deno.test("notes already in the file (a crash before the log was emptied) apply once", async () => {
  const t = await setup();
  await t.store.touch(ITEM.ref, ["a", "b"]);
  const logText = Deno.readTextFileSync(t.log);
  await t.store.update(ITEM.ref, { cwd: "/elsewhere" }); // folds
  Deno.writeTextFileSync(t.log, logText); // as if the process died between the rename and the emptying
  const record = (await t.store.live(ITEM.ref))!;
  assert.deepEqual(record.recentDeliveries, ["a", "b"]);
  assert.equal(record.cwd, "/elsewhere");
});

Deno.test("a closed session takes no note", async () => {
  const t = await setup();
  await t.store.close(ITEM.ref);
  assert.equal(await t.store.touch(ITEM.ref, "late"), undefined);
  assert.equal(await Deno.stat(t.log).then((s) => s.size).catch(() => 0), 0);
});

Deno.test("log lines read before a fold do not apply to the folded file", async () => {
  const dir = join(Deno.makeTempDirSync({ prefix: "sessions-notes-" }), "sessions");
  let tick = 0;
  const clock = () => new Date(Date.UTC(2026, 11, 1, 10, 0, tick++));
  const store = new SessionStore({
    registry: new RegistryDir(dir),
    events: new MemorySink(),
    now: clock,
  });
  await store.register({ item: ITEM, harness: "claude", harnessSessionId: "h", cwd: "/w" });
  const log = join(dir, "github-octo-repo-7.deliveries.jsonl");
  for (let i = 0; i < 30; i++) await store.touch(ITEM.ref, `old${i}`);
  const stale = Deno.readTextFileSync(log); // what a reader in another process has just read
  for (let i = 0; i < 25; i++) await store.touch(ITEM.ref, `new${i}`);
  await store.update(ITEM.ref, { cwd: "/w2" }); // folds, whatever the log's size
  const folded = (await store.get(ITEM.ref))!;
  assert.equal(folded.recentDeliveries.at(-1), "new24");
  // the reader goes on to read the record, now folded, and the lines it read must not apply
  Deno.writeTextFileSync(log, stale);
  const seen = (await new RegistryDir(dir).get(ITEM.ref))!;
  assert.deepEqual(seen.recentDeliveries, folded.recentDeliveries, "the newest ids stay, last");
  assert.equal(seen.lastEventAt, folded.lastEventAt);
});
