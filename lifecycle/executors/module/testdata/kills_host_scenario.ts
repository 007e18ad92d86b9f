// Run as its own process by escapes_test.ts: were a guard missing, the hook's signal would kill
// or freeze this process rather than the test runner. Loads kills_host.ts in a worker and in a
// hook-host child, aims every attack at the pid it runs in, prints one JSON line, then exits.
import { loadModuleHook, stopBundler } from "../mod.ts";
import type { ProcessHook } from "../_process_executor.ts";

const path = new URL("./kills_host.ts", import.meta.url).pathname;
const T = { timeoutMs: 15_000 };
const worker = await loadModuleHook({ name: "kills-host", path, baseDir: "/" });
const child = await loadModuleHook({
  name: "kills-host-p",
  path,
  baseDir: "/",
  isolation: "process",
});
await stopBundler();
const out: Record<string, unknown> = {};
const ask = async (hook: typeof worker, pid: number) => {
  try {
    return JSON.parse(String(
      (await hook.call("work_item_start", { actor: String(pid) }, T))
        .answer?.reason,
    ));
  } catch (err) {
    return { failed: (err as Error).message };
  }
};
out.worker = await ask(worker, Deno.pid);
out.process = await ask(child, (child as unknown as ProcessHook).pid ?? -1);
await worker.close();
await child.close();
console.log(JSON.stringify(out));
Deno.exit(0);
