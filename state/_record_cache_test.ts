import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, RecordCache, SETTLED_MS } from "./_record_cache.ts";
import { writeFileAtomic } from "./atomic.ts";
import { RegistryDir, type SessionRecord } from "./registry.ts";

/** Sets `path`'s times back by more than {@linkcode SETTLED_MS}: a record written a while ago. */
function settle(path: string): void {
  const past = new Date(Date.now() - 10 * SETTLED_MS);
  Deno.utimeSync(path, past, past);
}

Deno.test("a session's identity holds while nothing changes and moves with every kind of write", async () => {
  const dir = Deno.makeTempDirSync();
  const record = join(dir, "s.json");
  const log = join(dir, "s.deliveries.jsonl");
  assert.equal(identityOf(record, log), undefined, "no record: nothing to keep");
  await writeFileAtomic(record, '{"a":1}\n');
  assert.equal(identityOf(record, log), undefined, "written just now: read afresh");
  settle(record);
  const first = identityOf(record, log);
  assert.ok(first);
  assert.equal(identityOf(record, log), first);
  Deno.writeTextFileSync(log, '{"x":1}\n', { append: true });
  const appended = identityOf(record, log);
  assert.notEqual(appended, first, "an append to the log");
  await writeFileAtomic(record, '{"a":1}\n'); // the same bytes, a new file
  settle(record);
  const replaced = identityOf(record, log);
  assert.notEqual(replaced, appended, "the record replaced");
  Deno.truncateSync(log, 0);
  assert.notEqual(identityOf(record, log), replaced, "the log emptied");
});

Deno.test("a kept value is handed out only under its key, as a copy", () => {
  const cache = new RecordCache<{ n: number[] }>((v) => ({ n: [...v.n] }));
  const value = { n: [1] };
  cache.set("p", "k1", value);
  value.n.push(2); // the caller's own object: what is kept does not change
  assert.deepEqual(cache.get("p", "k1"), { n: [1] });
  cache.get("p", "k1")!.n.push(3);
  assert.deepEqual(cache.get("p", "k1"), { n: [1] });
  assert.equal(cache.get("p", "k2"), undefined, "another key: read again");
  assert.equal(cache.get("p", undefined), undefined);
  cache.set("p", undefined, value);
  assert.equal(cache.get("p", "k1"), undefined, "an unknown key drops what was kept");
});

// Found by review: the file system hands a freed inode straight back, every status is 6
// characters and every rev 8, and Deno's change time is whole seconds, so a record replaced twice
// within a clock tick of a read has the kept version's inode, size and times.
Deno.test("a reader is never handed a kept version after two quick rewrites of the same size", async () => {
  const dir = Deno.makeTempDirSync();
  const base: SessionRecord = {
    workItem: { ref: "github:o/r#1", provider: "github", owner: "o", repo: "r", number: 1 },
    harness: "claude",
    harnessSessionId: "h",
    cwd: "/w",
    status: "active",
    createdAt: "2026-01-01T00:00:00.000Z",
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "",
  };
  let stale = 0;
  for (let i = 0; i < 300; i++) {
    const writer = new RegistryDir(join(dir, `s${i}`));
    const reader = new RegistryDir(join(dir, `s${i}`));
    await writer.write(base, { durable: false });
    assert.equal((await reader.get(base.workItem.ref))?.status, "active");
    await writer.write({ ...base, status: "paused" }, { durable: false });
    await writer.write({ ...base, status: "closed" }, { durable: false });
    const truth = (await new RegistryDir(join(dir, `s${i}`)).get(base.workItem.ref))!;
    const seen = (await reader.get(base.workItem.ref))!;
    if (seen.status !== truth.status || seen.rev !== truth.rev) stale++;
  }
  Deno.removeSync(dir, { recursive: true });
  assert.equal(stale, 0, `${stale} of 300 reads were handed a version since replaced`);
});
