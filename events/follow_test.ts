import assert from "node:assert/strict";
import { type EventRecord, followEvents, MAX_LINE_BYTES, type OversizedLine } from "./mod.ts";
import { eventLine } from "./_test_utils.ts";

const line = (seq: number, event = "hooks.ran") => eventLine({ event, seq }) + "\n";

/** Waits until `cond` holds; fails only a hung test. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("followEvents: new lines, partial lines, truncation, rotation, a late file", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const got: number[] = [];
  const notices: string[] = [];
  let skipped = 0;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => stop = r);
  const following = followEvents({
    path, // does not exist yet: waited for
    start: 0,
    filter: { types: ["hooks.ran"] },
    onRecord: (r: EventRecord) => got.push(r.seq as number),
    onSkip: () => skipped++,
    onNotice: (m) => notices.push(m),
    stop: stopped,
    pollMs: 20,
  });
  const append = (text: string, file = path) =>
    Deno.writeTextFileSync(file, text, { append: true });
  append(line(1) + line(2, "hooks.decided") + line(3));
  await until(() => got.length === 2, "the first lines");
  const half = line(4);
  append(half.slice(0, 20));
  append(half.slice(20) + "not json\n");
  await until(() => got.length === 3 && skipped === 1, "the completed line");
  Deno.writeTextFileSync(path, line(5)); // truncated and rewritten, shorter than before
  await until(() => got.length === 4, "the line after truncation");
  assert.match(notices.join("\n"), /truncated/);
  append(line(6));
  Deno.renameSync(path, `${path}.1`); // rotation: the old file gets one more line, then a new file
  append(line(7), `${path}.1`);
  append(line(8));
  await until(() => got.length === 7, "the lines around rotation");
  assert.match(notices.join("\n"), /rotated/);
  stop();
  await following;
  assert.deepEqual(got, [1, 3, 4, 5, 6, 7, 8]);
});

Deno.test("followEvents starts at the given offset and stops promptly", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  Deno.writeTextFileSync(path, line(1));
  const got: number[] = [];
  let stop!: () => void;
  const following = followEvents({
    path,
    start: Deno.statSync(path).size,
    onRecord: (r) => got.push(r.seq as number),
    stop: new Promise<void>((r) => stop = r),
    pollMs: 60_000, // only the stop promise can end the wait
  });
  Deno.writeTextFileSync(path, line(2), { append: true });
  await until(() => got.length === 1, "the appended line");
  stop();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<string>((r) => timer = setTimeout(() => r("hung"), 10_000));
  assert.equal(await Promise.race([following.then(() => "stopped"), hung]), "stopped");
  clearTimeout(timer);
  assert.deepEqual(got, [2]);
});

Deno.test("followEvents skips a line over the cap, written in pieces, and reads on", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  Deno.writeTextFileSync(path, line(1));
  const got: number[] = [];
  const over: OversizedLine[] = [];
  let stop!: () => void;
  const following = followEvents({
    path,
    start: 0,
    onRecord: (r) => got.push(r.seq as number),
    onOversized: (l) => over.push(l),
    stop: new Promise<void>((r) => stop = r),
    pollMs: 5,
  });
  await until(() => got.length === 1, "the first line");
  const offset = Deno.statSync(path).size;
  const big = '{"event":"hooks.ran","pad":"' + "x".repeat(MAX_LINE_BYTES) + '"}';
  for (let i = 0; i < big.length; i += 256 * 1024) {
    Deno.writeTextFileSync(path, big.slice(i, i + 256 * 1024), { append: true });
  }
  Deno.writeTextFileSync(path, "\n" + line(2), { append: true });
  await until(() => got.length === 2, "the line after the long one");
  stop();
  await following;
  assert.deepEqual(got, [1, 2]);
  assert.deepEqual(over, [{ offset, bytes: big.length }]);
});
