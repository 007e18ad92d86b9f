// Run as its own process by escapes_test.ts, whose stdout it checks: loads prints_stdout.ts in a
// worker and in a hook-host child, calls each once, prints one JSON line, then exits. Nothing
// else may reach this process's stdout.
import { loadModuleHook, stopBundler } from "../mod.ts";

const path = new URL("./prints_stdout.ts", import.meta.url).pathname;
const T = { timeoutMs: 15_000 };
const out: Record<string, unknown> = {};
for (const isolation of ["worker", "process"] as const) {
  const hook = await loadModuleHook({ name: `prints-${isolation}`, path, baseDir: "/", isolation });
  await stopBundler();
  try {
    out[isolation] = JSON.parse(
      String((await hook.call("work_item_start", {}, T)).answer?.reason),
    );
  } catch (err) {
    out[isolation] = { failed: (err as Error).message };
  } finally {
    await hook.close();
  }
}
console.log(JSON.stringify(out));
Deno.exit(0);
