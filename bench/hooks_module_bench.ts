/**
 * Costs of local module hooks: bundling (cold and cached), worker start per hook, the round
 * trip of a trivial hook through the worker executor (10,000 sequential calls), and the same
 * under `isolation: "process"` (child start and per-call cost).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { Executor } from "../lifecycle/executor.ts";
import { bundleHook, loadModuleHook, stopBundler } from "../lifecycle/module/mod.ts";

const HOOK = fileURLToPath(new URL("../lifecycle/module/testdata/plain.ts", import.meta.url));
const SDK_HOOK = fileURLToPath(
  new URL("../lifecycle/module/testdata/sdk_hook.ts", import.meta.url),
);
const PARAMS = { work_item: { ref: "github:acme/app#42" }, actor: "alice", proceed: true };

/** The p-th percentile (0..100) of sorted `xs`, nearest rank. */
function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function calls(ex: Executor, n: number): Promise<Record<string, number>> {
  for (let i = 0; i < 200; i++) await ex.call("work_item_start", PARAMS, { timeoutMs: 10_000 });
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await ex.call("work_item_start", PARAMS, { timeoutMs: 10_000 });
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { calls: n, p50_ms: round(percentile(ms, 50)), p99_ms: round(percentile(ms, 99)) };
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
  const workerStart = await starts(10, () => loadModuleHook(opts));
  const sdkWorkerStart = await starts(10, () => loadModuleHook({ ...opts, path: SDK_HOOK }));
  const worker = await loadModuleHook(opts);
  const workerCalls = await calls(worker, 10_000);
  await worker.close();
  const processStart = await starts(5, () => loadModuleHook({ ...opts, isolation: "process" }));
  const child = await loadModuleHook({ ...opts, isolation: "process" });
  const processCalls = await calls(child, 2_000);
  await child.close();
  await stopBundler();
  return {
    bundle_cold_ms: round(coldBundle),
    bundle_cached_ms: round(cachedBundle),
    sdk_bundle_bytes: sdkBundleSize,
    worker_start: workerStart,
    worker_start_sdk_hook: sdkWorkerStart,
    worker_calls: workerCalls,
    process_start: processStart,
    process_calls: processCalls,
  };
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
