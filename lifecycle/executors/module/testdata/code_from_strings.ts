// Tries every way to turn a string into running code, and a few built-ins that must still work.
// deno-lint-ignore-file no-explicit-any no-eval
const G = globalThis as any;

function attempt(fn: () => unknown): string {
  try {
    return `ran:${String(fn())}`;
  } catch (err) {
    return (err as Error).message;
  }
}

export default {
  work_item_start() {
    const tries: Record<string, () => unknown> = {
      eval: () => G.eval("1 + 1"),
      indirectEval: () => (0, G.self.eval)("1 + 1"),
      Function: () => new G.Function("return 2")(),
      fnConstructor: () => (function () {}).constructor("return 2")(),
      AsyncFunction: () => typeof (async function () {}).constructor("return 2"),
      GeneratorFunction: () => typeof (function* () {}).constructor("yield 2"),
      AsyncGeneratorFunction: () => typeof (async function* () {}).constructor("yield 2"),
      Worker: () => new G.Worker("data:text/javascript,1", { type: "module" }),
      internals: () => typeof G.Deno[G.Deno.internal]?.core,
      getBuiltinModule: () => typeof G.process.getBuiltinModule("node:fs"),
      // what must keep working
      instanceOf: () => (() => {}) instanceof Function && G.Function === Function,
      asyncName: () => (async () => {}).constructor.name,
    };
    const out: Record<string, string> = {};
    for (const [k, f] of Object.entries(tries)) out[k] = attempt(f);
    return out;
  },
};
