import { loadModuleHook, stopBundler } from "/work/main/lifecycle/module/mod.ts";
const hook = await loadModuleHook({
  name: "probe",
  path: "/tmp/probe/hk/str_timer.ts",
  baseDir: "/tmp/probe/hk",
});
await stopBundler();
console.log(JSON.stringify((await hook.call("work_item_start", {}, { timeoutMs: 5000 })).answer));
try {
  console.log(JSON.stringify((await hook.call("work_item_start", {}, { timeoutMs: 5000 })).answer));
} catch (e) {
  console.log("second:", String(e));
}
await hook.close();
