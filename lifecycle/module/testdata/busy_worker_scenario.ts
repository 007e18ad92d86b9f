// Run as its own process by process_test.ts: a busy-looping worker thread cannot be stopped,
// so these scenarios must not run inside the test runner (each would hold a CPU for the rest of
// the run). Prints one JSON line, then exits (Deno.exit: the spinning threads never end).
import { HookLoadError } from "../mod.ts";
import { HookTimeout } from "../../executor.ts";
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
  message: err?.message,
  elapsed,
  ticks,
  next,
  load,
}));
Deno.exit(0);
