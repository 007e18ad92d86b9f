// Run as its own process by sandbox_test.ts: without the guard, the hook's signal would kill
// this process rather than the test runner. Prints one JSON line, then exits.
import { loadModuleHook, stopBundler } from "../mod.ts";

const path = new URL("./signals_self.ts", import.meta.url).pathname;
const hook = await loadModuleHook({ name: "signals-self", path, baseDir: "/" });
await stopBundler();
const out: Record<string, unknown> = {};
for (const how of ["deno", "node", "group"]) {
  out[how] = (await hook.call("work_item_start", { how }, { timeoutMs: 5000 })).answer?.reason;
}
await hook.close();
console.log(JSON.stringify(out));
Deno.exit(0);
