import assert from "node:assert/strict";
import { join } from "node:path";
import { BUILTIN_LOOPS } from "./builtin.ts";
import { enter } from "./machine.ts";
import { type CorruptPosition, LoopStore } from "./store.ts";

const REF = "github:octo/app#7";
const NOW = new Date("2026-01-02T03:04:05.678Z");

async function store() {
  const dir = await Deno.makeTempDir();
  const corrupt: CorruptPosition[] = [];
  const s = new LoopStore({
    dir: join(dir, "loops"),
    durable: false,
    now: () => NOW,
    onCorrupt: (o) => corrupt.push(o),
  });
  return { dir: join(dir, "loops"), s, corrupt };
}

const position = () => enter(BUILTIN_LOOPS.get("adhoc")!, { ref: REF, now: NOW }).position;

Deno.test("put then get: the same position, at <dir>/<slug>.json", async () => {
  const { dir, s } = await store();
  assert.equal(await s.get(REF), undefined, "never entered");
  assert.equal(s.pathOf(REF), join(dir, "github-octo-app-7.json"));
  await s.put(position());
  assert.deepEqual(await s.get(REF), position());
  assert.deepEqual(JSON.parse(await Deno.readTextFile(s.pathOf(REF))), position());
  const moved = { ...position(), node: "review", phase: "review" };
  await s.put(moved);
  assert.deepEqual(await s.get(REF), moved);
  // nothing but the position is left in the folder (no temp file)
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["github-octo-app-7.json"]);
});

Deno.test("an Enterprise ref has its own file; a text that is no ref is refused", async () => {
  const { dir, s } = await store();
  assert.equal(
    s.pathOf("github:ghe.example.com/octo/app#7"),
    join(dir, "github-ghe.example.com-octo-app-7.json"),
  );
  assert.throws(() => s.pathOf("octo/app#7"), RangeError);
});

Deno.test("a corrupt file is kept aside (never deleted), onCorrupt told, get answers undefined", async () => {
  const { dir, s, corrupt } = await store();
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(s.pathOf(REF), "this is not json");
  assert.equal(await s.get(REF), undefined);
  const keptAs = `${s.pathOf(REF)}.corrupt-20260102T030405Z`;
  assert.deepEqual(corrupt.map((c) => ({ ...c, error: "" })), [
    { ref: REF, path: s.pathOf(REF), keptAs, error: "" },
  ]);
  assert.match(corrupt[0].error, /not valid JSON/);
  assert.equal(await Deno.readTextFile(keptAs), "this is not json", "kept, as it was");
  assert.equal(await s.get(REF), undefined, "now never entered");
  assert.equal(corrupt.length, 1);
  // a second corrupt file in the same second takes a name of its own
  await Deno.writeTextFile(s.pathOf(REF), "{");
  await s.get(REF);
  assert.equal(corrupt[1].keptAs, `${keptAs}-2`);
  assert.equal(await Deno.readTextFile(keptAs), "this is not json");
});

Deno.test("a half-written file (truncated JSON) is corrupt", async () => {
  const { s, corrupt } = await store();
  await s.put(position());
  const text = await Deno.readTextFile(s.pathOf(REF));
  await Deno.writeTextFile(s.pathOf(REF), text.slice(0, Math.floor(text.length / 2)));
  assert.equal(await s.get(REF), undefined);
  assert.equal(corrupt.length, 1);
  assert.match(corrupt[0].error, /not valid JSON/);
});

Deno.test("valid JSON that is not a position of that item is corrupt", async () => {
  const cases: [unknown, RegExp][] = [
    [[1, 2], /not a JSON object/],
    [{ ...position(), version: 2 }, /version 2/],
    [{ ...position(), workItem: "github:octo/app#8" }, /position of "github:octo\/app#8"/],
    [{ ...position(), status: "lost" }, /status "lost"/],
    [{ ...position(), node: 3 }, /node/],
    [{ ...position(), attempts: { work: "x" } }, /attempts/],
    [{ ...position(), waitingSince: 5 }, /waitingSince/],
    [{ ...position(), history: [{ kind: "jump" }] }, /history/],
  ];
  for (const [data, error] of cases) {
    const { s, corrupt } = await store();
    await Deno.mkdir(join(s.pathOf(REF), ".."), { recursive: true });
    await Deno.writeTextFile(s.pathOf(REF), JSON.stringify(data));
    assert.equal(await s.get(REF), undefined);
    assert.match(corrupt[0]?.error ?? "", error);
  }
});

Deno.test("a position changed on disk by another process is read again, not answered from memory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new LoopStore({ dir });
    const ref = "github:octo/repo#7";
    const first = enter(BUILTIN_LOOPS.get("adhoc")!, { ref, now: new Date(0) }).position;
    await store.put(first);
    assert.equal((await store.get(ref))?.node, "work");
    // another writer (the CLI's resume, an operator) replaces the file
    const other = new LoopStore({ dir });
    await other.put({ ...first, node: "review", phase: "review" });
    assert.equal((await store.get(ref))?.node, "review");
    // a caller changing what it got does not change what the store answers next
    const got = (await store.get(ref))!;
    got.node = "mangled";
    assert.equal((await store.get(ref))?.node, "review");
    await Deno.remove(store.pathOf(ref));
    assert.equal(await store.get(ref), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
