/**
 * The documents and the code held together: every repository path a page of `docs/` or the README
 * names in backticks (`dispatch/seams.ts`, `lifecycle/sdk/`) exists. A path counts when its first
 * segment is one of the repository's top-level folders, so a user's path (`.the-loop/…`,
 * `hooks/deno.json`) is not checked. The decision records (`docs/decisions/`) are history: they
 * name files as they were when the decision was taken.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
/** Paths that name a folder of the repository a session works on, not of this one. */
const ELSEWHERE = new Set(["docs/specs/"]);
const PATH = /`((?:[A-Za-z0-9_.-]+\/)+(?:[A-Za-z0-9_.-]+\.(?:ts|md|json|yaml|jsonc))?)`/g;

function exists(path: string): boolean {
  try {
    Deno.statSync(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
}

function pages(): string[] {
  const docs = [...Deno.readDirSync(join(ROOT, "docs"))]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`);
  return ["README.md", ...docs.sort()];
}

Deno.test("every repository path the docs and the README name exists", () => {
  const folders = new Set(
    [...Deno.readDirSync(ROOT)].filter((e) => e.isDirectory && !e.name.startsWith(".")).map((e) =>
      e.name
    ),
  );
  const missing: string[] = [];
  let named = 0;
  for (const page of pages()) {
    const text = Deno.readTextFileSync(join(ROOT, page));
    for (const m of text.matchAll(PATH)) {
      const path = m[1];
      if (!folders.has(path.split("/")[0]) || ELSEWHERE.has(path)) continue;
      named++;
      if (!exists(path)) missing.push(`${page}: \`${path}\``);
    }
  }
  assert.ok(named > 50, `only ${named} paths named: is the pattern still right?`);
  assert.deepEqual([...new Set(missing)], []);
});
