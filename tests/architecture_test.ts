/**
 * The floors of the house (docs/contributing.md): a floor imports only from floors below it,
 * never up. This test reads every source file's imports (static and dynamic) and fails on an
 * import that goes up a floor.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** Floor of a repo-relative path: higher numbers may import lower ones. */
function floorOf(path: string): number {
  if (path === "main.ts") return 4;
  if (path.startsWith("commands/")) return 3;
  if (path.startsWith("lifecycle/")) return 2;
  return 1; // ground: config/, events/, state/, schema/, errors.ts, version.ts
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    const rel = relative(ROOT, p);
    if (e.isDirectory) {
      if (
        ["node_modules", "testdata", ".git", "dist", "tests", "bench", "hooks-examples"]
          .includes(e.name)
      ) continue;
      yield* sources(p);
    } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !/_test_util/.test(rel)) {
      yield rel;
    }
  }
}

const IMPORT =
  /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\s*\(?\s*["']([^"']+)["']/g;

Deno.test("no source file imports from a floor above its own", async () => {
  const violations: string[] = [];
  let files = 0;
  for await (const file of sources(ROOT)) {
    files++;
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith(".")) continue;
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
      if (target.startsWith("..")) continue;
      if (floorOf(target) > floorOf(file)) violations.push(`${file} imports ${target}`);
    }
  }
  assert.ok(files > 20, `scanned only ${files} files`);
  assert.deepEqual(violations, []);
});

Deno.test("nothing imports main.ts", async () => {
  const importers: string[] = [];
  for await (const file of sources(ROOT)) {
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".") && resolve(ROOT, dirname(file), spec) === join(ROOT, "main.ts")) {
        importers.push(file);
      }
    }
  }
  assert.deepEqual(importers, []);
});
