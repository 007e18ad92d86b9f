// Run as its own process by process_test.ts: a busy-looping worker thread cannot be stopped,
// so these scenarios must not run inside the test runner (each would hold a CPU for the rest of
// the run). Neither can a thread blocked in Atomics.wait: it is timed out while the spinning
// one still burns its core, so telling them apart must read each thread's own CPU time.
// Prints one JSON line, then exits (Deno.exit: the leaked threads never end).
import { HookLoadError } from "../mod.ts";
import { HookTimeout } from "../../../executor.ts";
import { loadModuleHook, stopBundler } from "../mod.ts";

const here = (file: string) => new URL(`./${file}`, import.meta.url).pathname;
const hook = await loadModuleHook({ name: "spins", path: here("spins.ts"), baseDir: "/" });
let ticks = 0;
const ticker = setInterval(() => ticks++, 10);
const started = performance.now();
const err = await hook.call("work_item_start", { spin: true }, { timeoutMs: 300 }).then(
  () => null,
  (e) => e,
);
const elapsed = performance.now() - started;
clearInterval(ticker);
// the next call must fail at once, not start a fresh worker (which a spin would pin again)
const next = await hook.call("work_item_start", {}, { timeoutMs: 60_000 }).then(
  (r) => r.answer,
  (e) => (e as Error).message,
);
await hook.close();
const blocks = await loadModuleHook({ name: "blocks", path: here("blocks.ts"), baseDir: "/" });
const blocked = await blocks.call("work_item_start", { block: true }, { timeoutMs: 300 }).then(
  () => null,
  (e) => e,
);
const afterBlocked = await blocks.call("work_item_start", {}, { timeoutMs: 60_000 }).then(
  (r) => r.answer,
  (e) => (e as Error).message,
);
await blocks.close();
const load = await loadModuleHook({
  name: "spins-at-load",
  path: here("spins_at_load.ts"),
  baseDir: "/",
  loadTimeoutMs: 500,
}).then(() => "loaded", (e) => e instanceof HookLoadError ? e.message : `not a load error: ${e}`);
await stopBundler();
console.log(JSON.stringify({
  timeout: err instanceof HookTimeout,
  leaked: err?.leaked,
  stuck: err?.stuck,
  message: err?.message,
  elapsed,
  ticks,
  next,
  load,
  blocked: {
    timeout: blocked instanceof HookTimeout,
    leaked: blocked?.leaked,
    stuck: blocked?.stuck,
    message: blocked?.message,
    next: afterBlocked,
  },
}));
Deno.exit(0);
