/**
 * Bench: loading a 1 MB CLI config in process (`loadConfig`: read, parse, plain-data walk,
 * schema check, defaults), in the shapes that were slow or unsafe before the loader read YAML
 * itself: one mapping of many keys (the `yaml` library's duplicate-key check made this quadratic:
 * 50,000 keys took 46 s) and many hook entries, against the target (well under a second
 * for 1 MB); and, as a figure without a target, a 1 MB file of nothing but nesting, which is
 * refused with one located problem but only after the `yaml` library's own tokenizer has read it
 * (its cost per level of nesting is several microseconds).
 *
 * @module
 */
import { join } from "node:path";
import { cpuUsage } from "node:process";
import { ProblemsError } from "../errors.ts";
import { loadConfig } from "../config/mod.ts";
import { round } from "./_stats.ts";

const TARGET_MS = 1000;
const MB = 1_000_000;

/** ~`bytes` of config: one `with:` mapping of distinct keys. */
function wideMapping(bytes: number): string {
  const lines = ["hooks:", "  - name: wide", "    path: wide.ts", "    with:"];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `      option${i}: value-${i}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/** ~`bytes` of config: many hook entries, each a few keys. */
function manyHooks(bytes: number): string {
  const lines = ["hooks:"];
  for (let i = 0, size = 0; size < bytes; i++) {
    const entry = [
      `  - name: hook-${i}`,
      `    command: ["./hooks/h${i}.py", "--strict"]`,
      "    on: [work_item_start, session_spawn]",
      "    timeoutSeconds: 5",
    ];
    lines.push(...entry);
    size += entry.join("\n").length + 1;
  }
  return lines.join("\n") + "\n";
}

/** ~`bytes` of config nested far past the limit (refused). */
function deepNesting(bytes: number): string {
  const half = Math.floor((bytes - 8) / 2);
  return "with: " + "[".repeat(half) + "]".repeat(half) + "\n";
}

const SHAPES: Record<string, { make: (bytes: number) => string; target: boolean }> = {
  wide_mapping_1mb: { make: wideMapping, target: true },
  many_hooks_1mb: { make: manyHooks, target: true },
  deep_nesting_1mb_refused: { make: deepNesting, target: false },
};

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-config-" });
  const runs = Number(Deno.env.get("THE_LOOP_BENCH_QUICK") ? 1 : 5);
  try {
    const results: Record<string, unknown> = { runs, target_ms: TARGET_MS };
    for (const [name, { make, target }] of Object.entries(SHAPES)) {
      const file = join(dir, `${name}.yaml`);
      const text = make(MB);
      await Deno.writeTextFile(file, text);
      const times: number[] = [];
      const cpu: number[] = [];
      let outcome = "";
      for (let i = 0; i < runs; i++) {
        const cpuStart = cpuUsage();
        const start = performance.now();
        outcome = await loadConfig({ flag: file, env: () => undefined, cwd: dir }).then(
          () => "loaded",
          (e) => e instanceof ProblemsError ? `refused: ${e.problems.length} problem(s)` : "threw",
        );
        times.push(performance.now() - start);
        const used = cpuUsage(cpuStart);
        cpu.push((used.user + used.system) / 1000);
      }
      times.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      results[name] = {
        bytes: text.length,
        outcome,
        load_ms_median: round(median),
        load_ms_max: round(times[times.length - 1]),
        // CPU time of the process (all its threads) while loading: steadier than wall time on a
        // busy machine
        cpu_ms_median: round(cpu[Math.floor(cpu.length / 2)]),
        ...(target ? { meets_target: median < TARGET_MS } : {}),
      };
    }
    return results;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
