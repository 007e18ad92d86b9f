// Run as its own process by storm_test.ts, which reads its stderr (where a worker's runtime
// reports a hook's async errors): loads storm_neutralized.ts once per spelling of the attack
// (each in a worker of its own), lets mallory's call set off the storm, calls the hook's other
// method and then an ordinary start, and prints one JSON line: each answer and the executor's
// status, by spelling.
import { loadModuleHook, stopBundler } from "../mod.ts";

const path = new URL("./storm_neutralized.ts", import.meta.url).pathname;
const T = { timeoutMs: 15_000 };
const out: Record<string, unknown> = {};
for (const spell of Deno.args) {
  const hook = await loadModuleHook({
    name: `storm-neutralized-${spell}`,
    path,
    baseDir: "/",
  });
  await stopBundler();
  const call = (point: "work_item_start" | "work_item_complete", params: object) =>
    hook.call(point, { ...params }, T).then((r) => r.answer, (e: Error) => `failed: ${e.message}`);
  try {
    out[spell] = {
      storm: await call("work_item_start", { actor: "mallory", spell }),
      other: await call("work_item_complete", {}),
      calm: await call("work_item_start", { actor: "alice" }),
      status: hook.status?.(),
    };
  } finally {
    await hook.close();
  }
}
console.log(JSON.stringify(out));
Deno.exit(0);
