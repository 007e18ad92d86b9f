/**
 * Bench: `the-loop events` over a generated 1,000,000-line log: `--limit 50` (reads only the
 * tail) and `--type 'hooks.*' --limit 50` (a filtered scan of the whole file).
 *
 * @module
 */
import { measureCli } from "./_cli.ts";
import { writeEventLog } from "./_event_log.ts";

/** Lines in the generated log; `THE_LOOP_BENCH_EVENT_LINES` overrides it (for a quick run). */
function lines(): number {
  const n = Number(Deno.env.get("THE_LOOP_BENCH_EVENT_LINES") ?? 1_000_000);
  return Number.isInteger(n) && n > 0 ? n : 1_000_000;
}

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-" });
  try {
    const path = `${dir}/events.jsonl`;
    const count = lines();
    const bytes = await writeEventLog({ path, lines: count });
    const base = ["events", "--file", path, "--format", "jsonl"];
    const tail = await measureCli([...base, "--limit", "50"], dir);
    const filtered = await measureCli([...base, "--type", "hooks.*", "--limit", "50"], dir);
    for (const [name, m] of [["tail", tail], ["filtered", filtered]] as const) {
      if (m.stdout_bytes === 0) throw new Error(`events ${name}: printed nothing`);
    }
    return {
      log_lines: count,
      log_bytes: bytes,
      limit_50: tail,
      type_filter_limit_50: filtered,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
