import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { RegistryDir } from "../../state/registry.ts";
import { parseWorkItem } from "../../state/work_item.ts";
import { SessionStore } from "./mod.ts";

// A daemon keeps what it read of a session and reads again when the files' stat changed
// (`state/_record_cache.ts`): another process's every kind of change must still be seen.

const ITEM = parseWorkItem("github:octo/repo#7")!;
/** Past the granule after which the registry keeps a read (`SETTLED_MS`, 50 ms, of the state floor). */
const PAST_GRANULE_MS = 100;

async function setup() {
  const dir = join(Deno.makeTempDirSync({ prefix: "sessions-cache-" }), "sessions");
  const open = () => new SessionStore({ registry: new RegistryDir(dir), events: new MemorySink() });
  const daemon = open();
  const cli = open(); // another process: its own registry, nothing shared but the files
  await daemon.register({ item: ITEM, harness: "claude", harnessSessionId: "h", cwd: "/w" });
  // the daemon sees the record, and a granule later its reads are kept: what follows is served
  // from what it kept wherever the files did not change
  await daemon.live(ITEM.ref);
  await new Promise((r) => setTimeout(r, PAST_GRANULE_MS));
  return { dir, daemon, cli };
}

Deno.test("a session read and kept still shows another process's pause, note and fold", async () => {
  const { daemon, cli } = await setup();
  await daemon.touch(ITEM.ref, "a");
  assert.deepEqual((await daemon.live(ITEM.ref))!.recentDeliveries, ["a"]); // read, and kept
  await cli.touch(ITEM.ref, "b"); // a line appended to the log
  assert.deepEqual((await daemon.live(ITEM.ref))!.recentDeliveries, ["a", "b"]);
  assert.deepEqual(await daemon.lookup(ITEM.ref, "b").then((l) => l.duplicate), true);
  await cli.update(ITEM.ref, { status: "paused" }); // the record replaced, the log emptied
  const paused = (await daemon.live(ITEM.ref))!;
  assert.equal(paused.status, "paused");
  assert.deepEqual(paused.recentDeliveries, ["a", "b"]);
  await daemon.touch(ITEM.ref, "c"); // kept as written, under the lock
  await cli.close(ITEM.ref);
  assert.equal(await daemon.live(ITEM.ref), undefined, "closed by the other process");
  assert.equal((await daemon.get(ITEM.ref))!.status, "closed");
  assert.deepEqual((await daemon.get(ITEM.ref))!.recentDeliveries, ["a", "b", "c"]);
});

Deno.test("a session file removed after it was read and kept is gone for the reader too", async () => {
  const { dir, daemon } = await setup();
  assert.ok(await daemon.live(ITEM.ref));
  Deno.removeSync(join(dir, "github-octo-repo-7.json"));
  assert.equal(await daemon.live(ITEM.ref), undefined);
});

Deno.test("what a reader is handed is its own: changing it changes no later read", async () => {
  const { daemon } = await setup();
  await daemon.touch(ITEM.ref, "a");
  const first = (await daemon.live(ITEM.ref))!;
  first.recentDeliveries.push("x");
  first.workItem.number = 99;
  first.status = "closed";
  const again = (await daemon.live(ITEM.ref))!;
  assert.deepEqual(again.recentDeliveries, ["a"]);
  assert.equal(again.workItem.number, 7);
  assert.equal(again.status, "active");
});
