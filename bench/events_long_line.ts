/**
 * Bench: `the-loop events` over a log holding one huge record (a 24 MiB line once
 * made the tail read take 22.6 s and a `--type` scan 3 s, quadratic in the line's length). The
 * log is a generated 20,000-line log, then one `hooks.ran` record of `record_mib` MiB, then
 * three more records, so the tail read must cross the huge line backwards and the scan forwards.
 * Both are measured for a 24 MiB record (the issue's; target about a second) and a 96 MiB one:
 * reading is linear in bytes, so four times the bytes costs at most about four times the
 * reading (and the CLI's start-up is in both). `THE_LOOP_BENCH_QUICK=1` uses 2 and 8 MiB.
 *
 * @module
 */
import { measureCli } from "./_cli.ts";
import { writeEventLog } from "./_event_log.ts";

/** The figures' names and the `the-loop` arguments they measure. */
const COMMANDS: Record<string, string[]> = {
  tail_limit_5_jsonl: ["events", "--limit", "5", "--format", "jsonl"],
  type_scan_limit_5_jsonl: ["events", "--type", "hooks.*", "--limit", "5", "--format", "jsonl"],
};

const TARGET_MS = 1000;

/** Appends one `hooks.ran` record whose `stdout` holds `mib` MiB, then three ordinary ones. */
async function appendHugeRecord(path: string, mib: number): Promise<void> {
  const rec = (seq: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      ts: "2026-07-23T00:00:00.000Z",
      source: "hooks",
      event: "hooks.ran",
      level: "info",
      pid: 4242,
      seq,
      ...extra,
    }) + "\n";
  const file = await Deno.open(path, { append: true });
  try {
    const text = rec(-1, { stdout: "x".repeat(mib * 1024 * 1024) }) + rec(-2) + rec(-3) + rec(-4);
    let rest = new TextEncoder().encode(text);
    while (rest.length > 0) rest = rest.subarray(await file.write(rest));
  } finally {
    file.close();
  }
}

async function measureWith(mib: number): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-" });
  try {
    const path = `${dir}/.the-loop/logs/events.jsonl`;
    await Deno.mkdir(`${dir}/.the-loop/logs`, { recursive: true });
    await writeEventLog({ path, lines: 20_000 });
    await appendHugeRecord(path, mib);
    const results: Record<string, unknown> = {
      record_mib: mib,
      log_bytes: (await Deno.stat(path)).size,
    };
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

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const quick = Deno.env.get("THE_LOOP_BENCH_QUICK") === "1";
  const issue = await measureWith(quick ? 2 : 24);
  for (const name of Object.keys(COMMANDS)) {
    const m = issue[name] as { wall_ms_median: number };
    Object.assign(m, { target_ms: TARGET_MS, meets_target: m.wall_ms_median <= TARGET_MS });
  }
  return { ...issue, four_times_the_bytes: await measureWith(quick ? 8 : 96) };
}
