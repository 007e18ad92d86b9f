// Run as its own process by module_process_test.ts: a busy-looping worker thread cannot be
// stopped, so this scenario must not run inside the test runner. Prints one JSON line, exits.
import { HookTimeout } from "../../executor.ts";
import { loadModuleHook, stopBundler } from "../mod.ts";

const path = new URL("./spins.ts", import.meta.url).pathname;
const hook = await loadModuleHook({ name: "spins", path, baseDir: "/" });
await stopBundler();
let ticks = 0;
const ticker = setInterval(() => ticks++, 10);
const started = performance.now();
const err = await hook.call("work_item_start", { spin: true }, { timeoutMs: 300 }).then(
  () => null,
  (e) => e,
);
const elapsed = performance.now() - started;
clearInterval(ticker);
const next = await hook.call("work_item_start", {}, { timeoutMs: 5000 });
await hook.close();
console.log(JSON.stringify({
  timeout: err instanceof HookTimeout,
  leaked: err?.leaked,
  message: err?.message,
  elapsed,
  ticks,
  next: next.answer,
}));
Deno.exit(0);
