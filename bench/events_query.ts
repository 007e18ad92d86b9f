/**
 * Bench: `the-loop events` over a generated 1,000,000-line log at the default place
 * (`.the-loop/logs/events.jsonl` under the working directory, found through the config as users
 * run it): the issue's `the-loop events --limit 50` in its default table format (reads only the
 * tail), `--type 'hooks.*' --limit 50` (a filtered scan of the whole file), and `--limit 50
 * --format jsonl` as an extra figure.
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

/** The figures' names and the `the-loop` arguments they measure. */
const COMMANDS: Record<string, string[]> = {
  limit_50: ["events", "--limit", "50"],
  type_filter_limit_50: ["events", "--type", "hooks.*", "--limit", "50"],
  limit_50_jsonl: ["events", "--limit", "50", "--format", "jsonl"],
};

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-" });
  try {
    await Deno.mkdir(`${dir}/.the-loop/logs`, { recursive: true });
    const count = lines();
    const bytes = await writeEventLog({ path: `${dir}/.the-loop/logs/events.jsonl`, lines: count });
    const results: Record<string, unknown> = { log_lines: count, log_bytes: bytes };
    for (const [name, args] of Object.entries(COMMANDS)) {
      const m = await measureCli(args, dir);
      if (m.stdout_bytes === 0) throw new Error(`the-loop ${args.join(" ")}: printed nothing`);
      results[name] = { command: `the-loop ${args.join(" ")}`, ...m };
    }
    return results;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
