import assert from "node:assert/strict";
import { join } from "node:path";
import { Inbox, InboxFullError, type TornRecord } from "./inbox.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const body = (n: number) => enc.encode(JSON.stringify({ n, pad: "x".repeat(100) }));

Deno.test("inbox: appended deliveries come back unsettled, in arrival order, after a reopen", async () => {
  const dir = await Deno.makeTempDir();
  const { inbox, pending } = Inbox.open({ dir });
  assert.deepEqual(pending, []);
  const seqs = await Promise.all(
    [1, 2, 3, 4].map((n) =>
      inbox.append({ deliveryId: `d${n}`, ghEvent: "issue_comment", body: body(n) })
    ),
  );
  assert.deepEqual(seqs, [1, 2, 3, 4]);
  inbox.settle(2);
  inbox.close();
  const again = Inbox.open({ dir });
  assert.deepEqual(again.pending.map((e) => e.deliveryId), ["d1", "d3", "d4"]);
  assert.equal(JSON.parse(dec.decode(again.inbox.body(3))).n, 3);
  // new ones follow the old ones
  assert.equal(await again.inbox.append({ deliveryId: "d5", ghEvent: "x", body: body(5) }), 5);
  again.inbox.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("inbox: a torn last record is skipped with a report, never a refusal to open", async () => {
  const dir = await Deno.makeTempDir();
  const { inbox } = Inbox.open({ dir });
  await inbox.append({ deliveryId: "whole", ghEvent: "x", body: body(1) });
  await inbox.append({ deliveryId: "torn", ghEvent: "x", body: body(2) });
  inbox.close();
  const [name] = [...Deno.readDirSync(dir)].map((e) => e.name);
  const path = join(dir, name);
  const size = Deno.statSync(path).size;
  Deno.truncateSync(path, size - 7); // a crash mid-write
  const torn: TornRecord[] = [];
  const again = Inbox.open({ dir, onTorn: (t) => torn.push(t) });
  assert.deepEqual(again.pending.map((e) => e.deliveryId), ["whole"]);
  assert.equal(torn.length, 1);
  assert.equal(torn[0].reason, "short");
  again.inbox.close();
  // a flipped byte fails the checksum
  const seg = [...Deno.readDirSync(dir)].map((e) => join(dir, e.name)).sort()[0];
  const data = Deno.readFileSync(seg);
  data[data.length - 3] ^= 0xff;
  Deno.writeFileSync(seg, data);
  const third = Inbox.open({ dir, onTorn: (t) => torn.push(t) });
  assert.deepEqual(third.pending, []);
  assert.equal(torn.at(-1)?.reason, "checksum");
  third.inbox.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("inbox: bounded on disk; settled segments are deleted and sparse ones compacted", async () => {
  const dir = await Deno.makeTempDir();
  const { inbox } = Inbox.open({ dir, maxBytes: 64 * 1024, segmentBytes: 4 * 1024 });
  const seqs: number[] = [];
  let refused = 0;
  for (let n = 0; n < 1000; n++) {
    try {
      seqs.push(await inbox.append({ deliveryId: `d${n}`, ghEvent: "x", body: body(n) }));
    } catch (error) {
      assert.ok(error instanceof InboxFullError);
      refused++;
      break;
    }
  }
  assert.equal(refused, 1);
  assert.ok(inbox.bytes <= 64 * 1024);
  // all but one settled: the files shrink to about that one (copied forward) and the current
  const keep = seqs[3];
  for (const s of seqs) if (s !== keep) inbox.settle(s);
  // a few more appends roll segments and let compaction run
  // (an append may be refused until the copy is synced and the old segment deleted: retried)
  const appended = async (deliveryId: string) => {
    for (let tries = 0;; tries++) {
      try {
        return await inbox.append({ deliveryId, ghEvent: "x", body: body(0) });
      } catch (error) {
        if (!(error instanceof InboxFullError) || tries > 1000) throw error;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
  };
  for (let n = 0; n < 60; n++) inbox.settle(await appended(`e${n}`));
  await appended("last");
  assert.ok(inbox.bytes < 16 * 1024, `${inbox.bytes} bytes left`);
  inbox.close();
  const again = Inbox.open({ dir });
  assert.deepEqual(again.pending.map((e) => e.deliveryId), ["d3", "last"]);
  again.inbox.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("inbox: a write that fails is refused, and later appends try again", async () => {
  const dir = await Deno.makeTempDir();
  const { inbox } = Inbox.open({ dir });
  await inbox.append({ deliveryId: "a", ghEvent: "x", body: body(1) });
  inbox.close();
  await assert.rejects(inbox.append({ deliveryId: "b", ghEvent: "x", body: body(2) }));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("inbox: a write that fails as a segment rolls refuses the appends gathered before it", async () => {
  // a real short write: a file-size limit (`ulimit -f`, SIGXFSZ ignored) makes the second
  // batch's write fail with EFBIG while fdatasync still succeeds, as on a full disk
  const dir = await Deno.makeTempDir();
  const script = join(dir, "run.ts");
  await Deno.writeTextFile(
    script,
    `import { Inbox } from ${JSON.stringify(import.meta.resolve("./inbox.ts"))};
const { inbox } = Inbox.open({ dir: ${JSON.stringify(join(dir, "inbox"))}, segmentBytes: 7000 });
const body = new Uint8Array(3000);
const said = (p) => p.then(() => "202", () => "503");
const out = [await said(inbox.append({ deliveryId: "x", ghEvent: "e", body }))];
const a = inbox.append({ deliveryId: "a", ghEvent: "e", body });
try { out.push(await said(inbox.append({ deliveryId: "b", ghEvent: "e", body }))); }
catch { out.push("503"); }
out.unshift(await said(a));
inbox.close();
console.log(JSON.stringify(out));
`,
  );
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      `trap '' XFSZ; ulimit -f 5; exec "$0" run --allow-all "$1"`,
      Deno.execPath(),
      script,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  // a: its bytes were cut short by the failed write, so it may not be answered 202
  assert.deepEqual(JSON.parse(dec.decode(out.stdout)), ["503", "202", "503"]);
  const { inbox, pending } = Inbox.open({ dir: join(dir, "inbox") });
  assert.deepEqual(pending.map((e) => e.deliveryId), ["x"]);
  inbox.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("inbox: a record damaged mid-segment is skipped alone; the ones after it are replayed", async () => {
  const dir = await Deno.makeTempDir();
  const { inbox } = Inbox.open({ dir });
  for (const n of [1, 2, 3]) {
    await inbox.append({ deliveryId: `d${n}`, ghEvent: "x", body: body(n) });
  }
  inbox.close();
  const [name] = [...Deno.readDirSync(dir)].map((e) => e.name);
  const path = join(dir, name);
  const data = Deno.readFileSync(path);
  data[Math.floor(data.length / 2)] ^= 0xff; // inside the second record
  Deno.writeFileSync(path, data);
  const torn: TornRecord[] = [];
  const again = Inbox.open({ dir, onTorn: (t) => torn.push(t) });
  assert.deepEqual(again.pending.map((e) => e.deliveryId), ["d1", "d3"]);
  assert.deepEqual(torn.map((t) => t.reason), ["checksum"]);
  assert.equal(JSON.parse(dec.decode(again.inbox.body(3))).n, 3);
  again.inbox.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("inbox: a compaction copy whose write fails keeps the old segment; a reopen finds every unsettled delivery", async () => {
  // a real failed write: the segment the copy rolls into is a device always full (opened by a
  // subprocess allowed to open it)
  const dir = await Deno.makeTempDir();
  const inboxDir = join(dir, "inbox");
  await Deno.mkdir(inboxDir);
  await Deno.symlink("/dev/full", join(inboxDir, "000000000003.seg"));
  const script = join(dir, "run.ts");
  await Deno.writeTextFile(
    script,
    `import { Inbox } from ${JSON.stringify(import.meta.resolve("./inbox.ts"))};
const body = new Uint8Array(100);
// one record's size (ids of one length, seqs of one digit)
const probe = ${JSON.stringify(join(dir, "probe"))};
const first = Inbox.open({ dir: probe });
await first.inbox.append({ deliveryId: "d1", ghEvent: "x", body });
first.inbox.close();
const record = Deno.statSync(probe + "/000000000001.seg").size;
const errors = [];
// four records a segment
const { inbox } = Inbox.open({
  dir: ${JSON.stringify(inboxDir)},
  segmentBytes: 4 * record + Math.floor(record / 2),
  onError: (e) => errors.push(String(e)),
});
for (let n = 1; n <= 8; n++) await inbox.append({ deliveryId: "d" + n, ghEvent: "x", body });
// segment 1 holds d1..d4, segment 2 (full) d5..d8: settling d2..d4 makes segment 1 sparse, and
// d1's copy rolls into segment 3, whose write fails
for (const seq of [2, 3, 4]) inbox.settle(seq);
const seg1 = ${JSON.stringify(join(inboxDir, "000000000001.seg"))};
const bound = Date.now() + 10_000;
while (errors.length === 0 && Date.now() < bound) await new Promise((r) => setTimeout(r, 5));
const kept = Deno.statSync(seg1).isFile && inbox.body(1).length === 100;
// later batches retry the compaction into a writable segment (the first may be refused: the
// failed segment's file is synced with it)
const gone = () => { try { Deno.statSync(seg1); return false; } catch { return true; } };
// appends that gather while a failing sync is under way: each one answered is on the disk
const answered = [];
const appends = [];
for (const id of ["d9", "d0", "e1", "e2", "e3", "e4"]) {
  appends.push(inbox.append({ deliveryId: id, ghEvent: "x", body }).then(() => answered.push(id), () => {}));
  await new Promise((r) => setTimeout(r, 0));
}
await Promise.all(appends);
while (!gone() && Date.now() < bound) await new Promise((r) => setTimeout(r, 5));
inbox.close(); // as a crash: nothing more reaches the disk
console.log(JSON.stringify({ failed: errors.length > 0, kept, answered }));
`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  const { inbox, pending } = Inbox.open({ dir: inboxDir });
  const ids = pending.map((e) => e.deliveryId);
  assert.deepEqual(ids.slice(0, 5), ["d1", "d5", "d6", "d7", "d8"]);
  assert.equal(inbox.body(1).length, 100);
  inbox.close();
  const { answered, ...rest } = JSON.parse(dec.decode(out.stdout));
  assert.deepEqual(rest, { failed: true, kept: true });
  // an append answered (a 202) is a promise: it is there after the crash
  for (const id of answered) assert.ok(ids.includes(id), `${id} was answered but is not on disk`);
  await Deno.remove(dir, { recursive: true });
});
