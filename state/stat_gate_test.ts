import assert from "node:assert/strict";
import { join } from "node:path";
import { DirListing, RECENT_MS, StatGate } from "./stat_gate.ts";

Deno.test("the stat gate re-reads a recently edited file every time, a quiet one only on change", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "cli-config.yaml");
  await Deno.writeTextFile(path, "a: 1\n");
  const gate = new StatGate(path);
  assert.equal(gate.due(), true, "the first look");
  // an edit in the same file-time tick keeping the size leaves the stat alone: still re-read
  await Deno.writeTextFile(path, "a: 2\n");
  assert.equal(gate.due(), true, "a recently edited file is always re-read");
  // a file left alone for longer than RECENT_MS is trusted to its stat
  const old = new Date(Date.now() - 2 * RECENT_MS - 1000);
  await Deno.utime(path, old, old);
  assert.equal(gate.due(), true, "the stat changed");
  assert.equal(gate.due(), false, "nothing changed");
  await Deno.writeTextFile(path, "a: 3\n");
  assert.equal(gate.due(), true, "an edit is seen");
  assert.equal(new StatGate(null).due(), false, "no file: nothing to reload");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("DirListing.mayHave: a listed name is taken on trust, an unlisted one is looked for", () => {
  const dir = Deno.makeTempDirSync();
  const listing = new DirListing(dir);
  assert.equal(listing.mayHave("a.json"), false);
  Deno.writeTextFileSync(join(dir, "a.json"), "{}");
  assert.equal(listing.mayHave("a.json"), true, "a new file is found");
  Deno.removeSync(join(dir, "a.json"));
  // still listed: the caller's read finds nothing and answers "none"; has() looks again
  assert.equal(listing.mayHave("a.json"), true);
  assert.equal(listing.has("a.json"), false);
  assert.equal(listing.mayHave("a.json"), false);
});

Deno.test("a question from before the last look is answered by it: no stat, and no stale answer", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "cli-config.yaml");
  await Deno.writeTextFile(path, "a: 1\n");
  const gate = new StatGate(path);
  const asked = performance.now();
  assert.equal(gate.due({ asOf: asked }), true, "the first look");
  // an edit now is after the question: the look taken since it answered it
  await Deno.writeTextFile(path, "a: 22\n");
  assert.equal(gate.due({ asOf: asked }), false, "asked before the last look");
  // a question from after the edit looks again and sees it
  assert.equal(gate.due({ asOf: performance.now() }), true);
  assert.equal(gate.due(), true, "no moment given: a look every time (recently edited)");
  await Deno.remove(dir, { recursive: true });
});
