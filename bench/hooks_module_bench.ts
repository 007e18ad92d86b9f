/**
 * Costs of local module hooks: bundling (cold and cached), worker start per hook, the round
 * trip of a trivial hook through the worker executor (10,000 sequential calls; target p50 ≤
 * 0.2 ms), and the same under `isolation: "process"` (child start and per-call cost).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { Executor } from "../lifecycle/mod.ts";
import { bundleHook, loadModuleHook, stopBundler } from "../lifecycle/mod.ts";
import { elapsed, judged, latency, percentile, round, scaled } from "./_stats.ts";

const HOOK = fileURLToPath(
  new URL("../lifecycle/executors/module/testdata/plain.ts", import.meta.url),
);
const SDK_HOOK = fileURLToPath(
  new URL("../lifecycle/executors/module/testdata/sdk_hook.ts", import.meta.url),
);
const PARAMS = { work_item: { ref: "github:acme/app#42" }, actor: "alice", proceed: true };

/** The target for a sandboxed local hook's per-call overhead. */
export const TARGET_CALL_P50_MS = 0.2;

function calls(ex: Executor, n: number) {
  return latency(() => ex.call("work_item_start", PARAMS, { timeoutMs: 10_000 }), {
    calls: n,
    warmup: scaled(200),
  });
}

async function starts(n: number, load: () => Promise<Executor>): Promise<Record<string, number>> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    let ex: Executor | undefined;
    ms.push(await elapsed(async () => ex = await load()));
    await ex!.close();
  }
  ms.sort((a, b) => a - b);
  return { starts: n, p50_ms: round(percentile(ms, 50)), max_ms: round(ms[ms.length - 1]) };
}

/** Measures module hooks; returns the figures (milliseconds). */
export async function run(): Promise<Record<string, unknown>> {
  const coldBundle = await elapsed(() => bundleHook(SDK_HOOK));
  const sdkBundleSize = (await bundleHook(SDK_HOOK)).code.length;
  const cachedBundle = await elapsed(() => bundleHook(SDK_HOOK));
  const opts = { name: "bench", path: HOOK, baseDir: "/" };
  const workerStart = await starts(scaled(10, 2), () => loadModuleHook(opts));
  const sdkWorkerStart = await starts(
    scaled(10, 2),
    () => loadModuleHook({ ...opts, path: SDK_HOOK }),
  );
  const worker = await loadModuleHook(opts);
  const workerCalls = await calls(worker, scaled(10_000));
  await worker.close();
  const processStart = await starts(
    scaled(5, 1),
    () => loadModuleHook({ ...opts, isolation: "process" }),
  );
  const child = await loadModuleHook({ ...opts, isolation: "process" });
  const processCalls = await calls(child, scaled(2_000));
  await child.close();
  await stopBundler();
  return {
    bundle_cold_ms: round(coldBundle),
    bundle_cached_ms: round(cachedBundle),
    sdk_bundle_bytes: sdkBundleSize,
    worker_start: workerStart,
    worker_start_sdk_hook: sdkWorkerStart,
    worker_calls: judged(workerCalls, { p50_ms: TARGET_CALL_P50_MS }),
    process_start: processStart,
    process_calls: processCalls,
  };
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
