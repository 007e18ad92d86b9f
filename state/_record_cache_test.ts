import assert from "node:assert/strict";
import { join } from "node:path";
import { identityOf, RecordCache } from "./_record_cache.ts";
import { writeFileAtomic } from "./atomic.ts";

Deno.test("a session's identity holds while nothing changes and moves with every kind of write", async () => {
  const dir = Deno.makeTempDirSync();
  const record = join(dir, "s.json");
  const log = join(dir, "s.deliveries.jsonl");
  assert.equal(identityOf(record, log), undefined, "no record: nothing to keep");
  await writeFileAtomic(record, '{"a":1}\n');
  const first = identityOf(record, log);
  assert.ok(first);
  assert.equal(identityOf(record, log), first);
  Deno.writeTextFileSync(log, '{"x":1}\n', { append: true });
  const appended = identityOf(record, log);
  assert.notEqual(appended, first, "an append to the log");
  await writeFileAtomic(record, '{"a":1}\n'); // the same bytes, a new file
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
