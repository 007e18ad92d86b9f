/**
 * Run by `hooks_idle_rss.ts` in a fresh process: reads RSS at start, loads one hook (esbuild,
 * the bundle cache and the worker machinery warm up), lets it settle, reads RSS, loads N more
 * copies through the real loader (N more idle workers, the bundle cached), settles, reads RSS
 * again, and prints the figures as JSON.
 *
 * Usage: deno run <bench flags> bench/_idle_rss_child.ts <N> <settle-ms>
 *
 * @module
 */
import { stopBundler } from "../lifecycle/mod.ts";
import { loadPassHooks } from "./_hook_config.ts";
import { round } from "./_stats.ts";

const n = Number(Deno.args[0] ?? 10);
const settleMs = Number(Deno.args[1] ?? 1000);
const settle = () => new Promise((r) => setTimeout(r, settleMs));
const atStart = Deno.memoryUsage().rss;
const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-rss-" });
const first = await loadPassHooks(dir, 1);
await settle();
const before = Deno.memoryUsage().rss;
const t = performance.now();
const more = await loadPassHooks(dir, n);
const loadMs = performance.now() - t;
await settle();
const after = Deno.memoryUsage().rss;
await Promise.all([...first, ...more].map((e) => e.executor.close()));
await stopBundler();
await Deno.remove(dir, { recursive: true });
const kib = (b: number) => Math.round(b / 1024);
console.log(JSON.stringify({
  hooks: n,
  rss_at_start_kib: kib(atStart),
  rss_before_kib: kib(before),
  rss_after_kib: kib(after),
  rss_per_hook_kib: kib((after - before) / n),
  load_all_ms: round(loadMs),
  load_per_hook_ms: round(loadMs / n),
}));
