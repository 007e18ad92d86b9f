import assert from "node:assert/strict";
import { walk } from "./_test_utils.ts";
import { EVENT_TYPES, LEVELS } from "./mod.ts";
import { DOCS_PATH, renderEventsDocs } from "./render_docs.ts";

const ROOT = new URL("..", import.meta.url).pathname;

// A call of `emit` — a method, or a wrapper whose name ends in emit/Emit (`safeEmit(sink, …)`) —
// whose first or second argument is a string literal in any quotes, possibly on the next line.
// Only dotted names count (event types are `namespace.name`; `emit("data")` is something else).
const EMIT =
  /\b[A-Za-z_$]*[eE]mit\(\s*(?:[A-Za-z_$][\w$.]*\s*,\s*)?(["'`])([a-z][\w-]*\.[\w.]+)\1/g;

Deno.test("every event type emitted in the code is in the catalog", async () => {
  const found: { type: string; where: string }[] = [];
  for await (
    const file of walk(ROOT, {
      ext: ".ts",
      skip: ["node_modules", "dist", ".git", "fixtures", "testdata"],
    })
  ) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(EMIT)) {
      const line = text.slice(0, m.index).split("\n").length;
      found.push({ type: m[2], where: `${file.slice(ROOT.length)}:${line}` });
    }
  }
  const missing = found.filter((f) => !Object.hasOwn(EVENT_TYPES, f.type));
  assert.deepEqual(
    missing.map((f) => `${f.where}: '${f.type}'`),
    [],
    "these event types are emitted but missing from events/catalog.ts",
  );
  // the scan does find emits (so an empty result is not a broken scan)
  assert.ok(found.some((f) => f.where.startsWith("events/")), "the scan found no emit at all");
  const call = "emit"; // spelled apart so this file does not match itself
  const sample = `log.${call}("a.b", {});\nsink.${call}(\n  'c.d',\n);\n${call}(\`e.f\`);\nsafeE${
    call.slice(1)
  }(o.sink, "g.h");\nsubmit("x.y");\n${call}("data");`;
  assert.deepEqual([...sample.matchAll(EMIT)].map((m) => m[2]), ["a.b", "c.d", "e.f", "g.h"]);
});

Deno.test("every event type in the catalog is emitted by some non-test code", async () => {
  const emitted = new Set<string>();
  for await (
    const file of walk(ROOT, {
      ext: ".ts",
      skip: ["node_modules", "dist", ".git", "fixtures", "testdata", "tests", "bench"],
    })
  ) {
    if (/_test(_util)?\.ts$/.test(file)) continue;
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(EMIT)) emitted.add(m[2]);
  }
  const unused = Object.keys(EVENT_TYPES).filter((t) => !emitted.has(t));
  assert.deepEqual(unused, [], "catalogued but never emitted: drop them or emit them");
});

Deno.test("the catalog is well formed: dotted names, known levels, typed fields", () => {
  for (const [name, t] of Object.entries(EVENT_TYPES)) {
    assert.match(name, /^[a-z][a-z_-]*\.[a-z_]+$/, name);
    assert.ok(LEVELS.includes(t.level), `${name}: level ${t.level}`);
    assert.ok(t.description.endsWith("."), `${name}: description`);
    for (const [field, doc] of Object.entries(t.fields)) {
      assert.match(field, /^[a-z][a-z0-9_]*$/, `${name}.${field}`);
      assert.match(
        doc,
        /^[a-z[\]| ]+ — \S/,
        `${name}.${field}: '${doc}' should read 'type — meaning'`,
      );
    }
  }
});

Deno.test("docs/events.md shows the catalog as it is (regenerate: events/render_docs.ts)", async () => {
  const page = await Deno.readTextFile(DOCS_PATH);
  assert.equal(page, await renderEventsDocs(page));
  for (const name of Object.keys(EVENT_TYPES)) assert.ok(page.includes(`### \`${name}\``), name);
});
