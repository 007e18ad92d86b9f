/**
 * Takes away, inside a hook's worker, every way to turn a string into running code: `eval`,
 * the `Function` constructor and its async/generator siblings (reached through any function's
 * `constructor`), nested workers (a `blob:` worker could carry anything), and Deno's internal
 * object (its `core` evaluates code and writes to raw file descriptors). Together with the
 * bundler's refusal of computed `import()`, hook code can only be the code that was bundled.
 * Part of the worker runtime: embedded as text and bundled ahead of the hook.
 *
 * @module
 */
import { refused, replace } from "./_runtime_refusals.ts";

// deno-lint-ignore no-explicit-any
type Loose = Record<string, any>;

const STRINGS = "hooks cannot run code built from strings; write it in the hook's files";

/**
 * A stand-in for a function constructor: same name and `prototype` (so `instanceof Function`
 * and `fn.constructor.name` keep working), but it throws when called or constructed.
 */
function standIn(name: string, proto: object): () => never {
  const fn = refused(`${name}()`, STRINGS);
  Object.defineProperty(fn, "name", { value: name });
  Object.defineProperty(fn, "prototype", { value: proto, writable: false });
  return fn;
}

/** Installs the code-generation guards on the worker's global `g` (after `guardWorker`). */
export function lockDownCode(g: Loose): void {
  replace(g, "eval", refused("eval()", STRINGS));
  const kinds: [string, object][] = [
    ["Function", Object.getPrototypeOf(function () {})],
    ["AsyncFunction", Object.getPrototypeOf(async function () {})],
    ["GeneratorFunction", Object.getPrototypeOf(function* () {})],
    ["AsyncGeneratorFunction", Object.getPrototypeOf(async function* () {})],
  ];
  for (const [name, proto] of kinds) {
    const fn = standIn(name, proto);
    replace(proto, "constructor", fn);
    if (name === "Function") replace(g, "Function", fn);
  }
  replace(g, "Worker", refused("new Worker()", "a hook runs in the one worker it is given"));
  // guardWorker has already swapped `Deno` for a view without the internal symbol (and removed
  // it from the real namespace); this covers a global it has not guarded
  const d = g.Deno;
  if (d && typeof d.internal === "symbol") {
    try {
      delete d[d.internal];
    } catch { /* not configurable: left as is */ }
  }
}
