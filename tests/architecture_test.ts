/**
 * The house's rules (docs/contributing.md), read from every source file's imports (static,
 * dynamic and text imports):
 *
 * - floors: a floor imports only from floors below it, never up;
 * - no circles: no import cycle anywhere in the shipped code, type-only imports included;
 * - faces: code outside `lifecycle/` reaches the hook engine through `lifecycle/mod.ts` and the
 *   hook-author SDK through `lifecycle/sdk/mod.ts`, never another of their files;
 * - the SDK is a floor of its own: its files import only files of `lifecycle/sdk/`;
 * - `_` means private: a `_` file is imported only from its own folder (or a folder below it);
 *   test helpers have one name, `_test_utils.ts`, and only tests and benches import them from
 *   elsewhere;
 * - a `mod.ts` never re-exports a `_` file's contents as if they were public;
 * - and, read from the code itself: timers, races and sleeps only in `async/`; a runner's `spawn`
 *   called only from `dispatch/turn/_spawn.ts` (every launch asks `session_spawn`).
 */
import assert from "node:assert/strict";
import { basename, dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const TEST_UTILS = "_test_utils.ts";

/** Floor of a repo-relative path of shipped code: higher numbers may import lower ones. */
function floorOf(path: string): number {
  if (path === "main.ts") return 7;
  if (path.startsWith("commands/")) return 6;
  // the fake GitHub the demo ships depends on nothing of the product: ground
  if (path.startsWith("demo/fake_github/")) return 1;
  if (path.startsWith("poll/") || path.startsWith("webhook/")) return 5; // the ingress paths
  if (path.startsWith("demo/")) return 5; // `the-loop demo`: runs a daemon, beside them
  if (path.startsWith("ingress/")) return 4; // the router both paths share
  if (path.startsWith("ui/")) return 4; // the status page (reads every store) and its web terminal
  // repo-scoped tools (critics, scenarios): dispatch's harness face and the ground
  if (path.startsWith("repo/")) return 4;
  if (path.startsWith("dispatch/")) return 3;
  if (path.startsWith("lifecycle/") || path.startsWith("loops/")) {
    return 2; // the hook engine and the loops
  }
  // ground: async/, config/, events/, notify/, state/, schema/, github/, daemon/, errors.ts, terminal.ts,
  // version.ts
  return 1;
}

const isTest = (rel: string) =>
  rel.endsWith("_test.ts") || basename(rel) === TEST_UTILS || rel.startsWith("tests/") ||
  rel.startsWith("bench/");

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) {
      if (["node_modules", "testdata", ".git", "dist"].includes(e.name)) continue;
      yield* sources(p);
    } else if (/\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts")) {
      yield relative(ROOT, p);
    }
  }
}

const IMPORT =
  /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\s*\(?\s*["']([^"']+)["']/g;
const REEXPORT = /export\s[^"'`;]*?from\s*["'](\.[^"']+)["']/g;

interface Edge {
  from: string;
  to: string;
}

/** Every source file's text, by repo-relative path: read once, for all the rules below. */
const texts = new Map<string, string>();
for await (const file of sources(ROOT)) texts.set(file, await Deno.readTextFile(join(ROOT, file)));

/** A file's code without its comments (for the rules read from the code, not the imports). */
function codeOf(file: string): string {
  return texts.get(file)!.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const [file, text] of texts) {
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith(".")) continue;
      const to = relative(ROOT, resolve(ROOT, dirname(file), spec));
      if (!to.startsWith("..")) out.push({ from: file, to });
    }
  }
  return out;
}

const all = edges();

Deno.test("the import scan sees the whole tree", () => {
  assert.ok(new Set(all.map((e) => e.from)).size > 150, `scanned only ${all.length} imports`);
});

Deno.test("no source file imports from a floor above its own", () => {
  const violations = all
    .filter((e) => !isTest(e.from) && floorOf(e.to) > floorOf(e.from))
    .map((e) => `${e.from} imports ${e.to}`);
  assert.deepEqual(violations, []);
});

Deno.test("nothing imports main.ts", () => {
  assert.deepEqual(all.filter((e) => e.to === "main.ts").map((e) => e.from), []);
});

/**
 * The import graph's cycles, each as the shortest path through one of its files back to itself
 * (one path per file of a strongly connected component, duplicates dropped), e.g.
 * `a.ts → b.ts → a.ts`. Type-only imports count: a circle closed by `import type` still cannot
 * be read from the bottom up.
 */
function cycles(graph: Map<string, Set<string>>): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  const out = new Set<string>();
  for (const component of components) {
    const inside = new Set(component);
    for (const start of component) {
      // breadth first from `start`, inside the component, until an edge returns to it
      const before = new Map<string, string>();
      const queue = [start];
      let last: string | undefined;
      while (queue.length > 0 && last === undefined) {
        const v = queue.shift()!;
        for (const w of [...graph.get(v)!].sort()) {
          if (w === start) {
            last = v;
            break;
          }
          if (inside.has(w) && !before.has(w)) {
            before.set(w, v);
            queue.push(w);
          }
        }
      }
      const path = [start];
      for (let v = last!; v !== start; v = before.get(v)!) path.splice(1, 0, v);
      const least = path.indexOf([...path].sort()[0]); // one rotation per circle
      const turned = [...path.slice(least), ...path.slice(0, least)];
      out.add([...turned, turned[0]].join(" → "));
    }
  }
  return [...out].sort();
}

Deno.test("no import cycle anywhere in the product tree (type-only imports count)", () => {
  const graph = new Map<string, Set<string>>();
  for (const e of all) {
    if (isTest(e.from)) continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    // a face's module doc shows how to import it (`from "../github/mod.ts"`): not an edge
    if (!isTest(e.to) && e.to !== e.from) graph.get(e.from)!.add(e.to);
  }
  assert.deepEqual(cycles(graph), []);
});

Deno.test("outside lifecycle/, the engine is reached through its face and the SDK through its", () => {
  const faces = ["lifecycle/mod.ts", "lifecycle/sdk/mod.ts"];
  const violations = all
    .filter((e) => !e.from.startsWith("lifecycle/") && e.to.startsWith("lifecycle/"))
    .filter((e) => !faces.includes(e.to))
    .filter((e) => !(isTest(e.from) && basename(e.to) === TEST_UTILS))
    .map((e) => `${e.from} imports ${e.to} (use ${faces.join(" or ")})`);
  assert.deepEqual(violations, []);
});

/** Packages whose face (`mod.ts`) is the only file code elsewhere may import. */
const PACKAGES = [
  "async/",
  "github/",
  "daemon/",
  "dispatch/",
  "ingress/",
  "poll/",
  "webhook/",
  "ui/",
];

Deno.test("the daemon's packages are reached through their mod.ts from outside", () => {
  const violations = all
    .filter((e) => !isTest(e.from))
    .filter((e) => {
      const pkg = PACKAGES.find((p) => e.to.startsWith(p));
      return pkg !== undefined && !e.from.startsWith(pkg) && e.to !== `${pkg}mod.ts`;
    })
    .map((e) => `${e.from} imports ${e.to} (use its folder's mod.ts)`);
  assert.deepEqual(violations, []);
});

Deno.test("the SDK imports nothing but its own files", () => {
  const violations = all
    .filter((e) => e.from.startsWith("lifecycle/sdk/") && !isTest(e.from))
    .filter((e) => !e.to.startsWith("lifecycle/sdk/"))
    .map((e) => `${e.from} imports ${e.to}`);
  assert.deepEqual(violations, []);
});

Deno.test("a _ file is imported only from its own folder (test helpers: by tests)", () => {
  const violations = all
    .filter((e) => basename(e.to).startsWith("_"))
    .filter((e) => {
      const home = dirname(e.to);
      const at = dirname(e.from);
      if (at === home || at.startsWith(`${home}/`) || home === ".") return false;
      return !(basename(e.to) === TEST_UTILS && isTest(e.from));
    })
    .map((e) => `${e.from} imports ${e.to}, private to ${dirname(e.to)}/`);
  assert.deepEqual(violations, []);
});

Deno.test("test helpers are called _test_utils.ts", () => {
  const odd: string[] = [];
  for (const file of texts.keys()) {
    const name = basename(file);
    if (/^_.*(test_util|test_helper|_fakes|test_server)/.test(name) && name !== TEST_UTILS) {
      odd.push(file);
    }
  }
  assert.deepEqual(odd, []);
});

Deno.test("no mod.ts re-exports a _ file's contents as public", () => {
  const violations: string[] = [];
  for (const [file, text] of texts) {
    if (basename(file) !== "mod.ts") continue;
    for (const m of text.matchAll(REEXPORT)) {
      if (basename(m[1]).startsWith("_")) violations.push(`${file} re-exports ${m[1]}`);
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("github/ imports only the ground it needs: async, events, state, errors, version, config types", () => {
  const allowed = (to: string) =>
    to.startsWith("github/") || to.startsWith("async/") || to.startsWith("events/") ||
    to.startsWith("state/") ||
    ["errors.ts", "version.ts", "config/types.ts"].includes(to);
  const violations = all
    .filter((e) => e.from.startsWith("github/") && !isTest(e.from) && !allowed(e.to))
    .map((e) => `${e.from} imports ${e.to}`);
  assert.deepEqual(violations, []);
});

Deno.test("every worker module started from a file URL is embedded by `deno task compile`", async () => {
  // `deno compile` embeds a worker's module only when --include names it (docs: compile, Workers)
  const task = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks.compile as string;
  const workers: string[] = [];
  for (const [file, text] of texts) {
    if (file.endsWith("_test.ts") || !text.includes("new Worker(")) continue;
    for (
      const m of text.matchAll(/new URL\(\s*"(\.{1,2}\/[^"]+\.ts)",\s*import\.meta\.url\s*\)/g)
    ) {
      workers.push(relative(ROOT, resolve(ROOT, dirname(file), m[1])));
    }
  }
  assert.ok(workers.includes("webhook/_intake_worker.ts"), `found: ${workers.join(", ")}`);
  for (const w of workers) assert.ok(task.includes(`--include ${w} `), `${w} is not --include'd`);
});

/**
 * Timers, races and sleeps live in `async/` (deadline, withDeadline, delay, later/every): a
 * hand-written `Promise.race` against a timer forgets to clear it, or leaves a listener on a
 * long-lived signal, or grows a promise's reactions with each loop. Product code (not tests,
 * benches, test helpers or test fixtures) calls none of them itself. Comments are not read.
 */
const TIMER_CALL = /\b(setTimeout|setInterval|Promise\.race)\s*\(/g;

/** Scripts that run in a browser (the status page's), embedded as text and never run by Deno. */
const BROWSER = /^ui\/(.+\/)?page\/[^/]+\.js$/;

Deno.test("outside async/, product code has no setTimeout, setInterval or Promise.race of its own", () => {
  const violations: string[] = [];
  for (const file of texts.keys()) {
    if (isTest(file) || file.startsWith("async/") || BROWSER.test(file)) continue;
    for (const m of codeOf(file).matchAll(TIMER_CALL)) {
      violations.push(`${file} calls ${m[1]} (use async/mod.ts)`);
    }
  }
  assert.deepEqual(violations, []);
});

/**
 * One place launches a harness: `dispatch/turn/_spawn.ts`, after the `session_spawn` hooks said
 * yes (a first launch and a relaunch alike; `dispatch/dispatcher_relaunch_test.ts` holds the
 * behaviour). The terminal-safe wrapper only passes the call on. A runner's `deliver` never
 * launches; anything else calling a runner's `spawn` would be a launch no hook saw.
 */
const LAUNCHERS = new Set(["dispatch/turn/_spawn.ts", "dispatch/_safe_runner.ts"]);

Deno.test("only dispatch/turn/_spawn.ts calls a runner's spawn (every launch asks session_spawn)", () => {
  const violations: string[] = [];
  for (const file of texts.keys()) {
    if (isTest(file) || LAUNCHERS.has(file)) continue;
    for (const m of codeOf(file).matchAll(/\b(\w*[rR]unner)\s*\??\.\s*spawn\s*\(/g)) {
      violations.push(`${file} calls ${m[1]}.spawn (launch through dispatch/turn/_spawn.ts)`);
    }
  }
  assert.deepEqual(violations, []);
});
