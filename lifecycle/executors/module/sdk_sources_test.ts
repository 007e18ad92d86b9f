import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { SDK_ENTRY, SDK_SOURCES } from "../../sdk/sources.ts";
import { SDK_DIR } from "./_resolve.ts";

/** Every relative specifier in `source`: static, re-export, side-effect and literal dynamic. */
function relativeImports(source: string): string[] {
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.\.?\/[^"']+)["']/g;
  return [...source.matchAll(re)].map((m) => m[1]);
}

Deno.test("every file the SDK's mod.ts reaches is in the embedded map, as on disk", async () => {
  const seen = new Set<string>();
  const todo = [SDK_ENTRY];
  while (todo.length) {
    const name = todo.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    assert.ok(Object.hasOwn(SDK_SOURCES, name), `lifecycle/_sdk_sources.ts lacks ${name}`);
    const onDisk = await Deno.readTextFile(join(SDK_DIR, name));
    assert.equal(SDK_SOURCES[name], onDisk, `embedded ${name} differs from the file`);
    for (const spec of relativeImports(onDisk)) {
      const target = relative(SDK_DIR, join(SDK_DIR, dirname(name), spec));
      assert.ok(!target.startsWith(".."), `${name} imports ${spec}, outside lifecycle/`);
      todo.push(target);
    }
  }
  assert.ok(seen.size > 1, "mod.ts imports the rest of the SDK");
});

Deno.test("the relative-import scan finds each import form", () => {
  const src = `import a from "./a.ts";\nexport { b } from '../b.ts';\nimport "./c.ts";\n` +
    `import type { D } from "./d.ts";\nconst e = await import("./e.ts");\nimport x from "npm:x";`;
  assert.deepEqual(relativeImports(src), ["./a.ts", "../b.ts", "./c.ts", "./d.ts", "./e.ts"]);
});
