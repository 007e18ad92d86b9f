/**
 * The hook engine's cost as the daemon pays it: `Runner.run` at `work_item_start` with one
 * sandboxed module hook (10,000 runs; target p50 ≤ 0.2 ms), with no sink and with the real
 * `EventLog` on a temp file (one `hooks.ran` line per call), and a chain of 5 module hooks at
 * one point (2,000 runs, 5 lines each; target p99 ≤ 2 ms; also without a sink).
 *
 * @module
 */
import { EventLog, type EventSink, NULL_SINK } from "../events/mod.ts";
import { makeContext, type WorkItemStart } from "../lifecycle/sdk/mod.ts";
import { stopBundler } from "../lifecycle/mod.ts";
import { Runner, type RunnerEntry } from "../lifecycle/mod.ts";
import { judged, latency, scaled } from "./_stats.ts";
import { loadPassHooks } from "./_hook_config.ts";

/** The targets. */
export const TARGETS = { single_p50_ms: 0.2, chain5_p99_ms: 2 } as const;

function runs(entries: RunnerEntry[], sink: EventSink, calls: number) {
  const runner = new Runner({ entries, sink });
  let ctx: WorkItemStart;
  return latency(async () => {
    await runner.run("work_item_start", ctx);
    if (ctx.proceed !== true) throw new Error("the bench hook refused; the bench is broken");
  }, {
    calls,
    warmup: Math.ceil(Math.min(2_000, calls / 5)),
    prepare: () =>
      ctx = makeContext("work_item_start", {
        work_item: "github:acme/app#42" as never,
        loop: "pdlc",
        command: "start",
        actor: "alice",
        harness: "claude",
        instance: "",
      }),
  });
}

async function lines(path: string): Promise<number> {
  return (await Deno.readTextFile(path)).split("\n").length - 1;
}

/** Measures the runner; returns the figures (milliseconds). */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-runner-" });
  const entries = await loadPassHooks(dir, 5);
  try {
    const one = [entries[0]];
    const log = `${dir}/events.jsonl`;
    const nullSink = await runs(one, NULL_SINK, scaled(10_000));
    const logged = await runs(one, new EventLog({ path: log, source: "hooks" }), scaled(10_000));
    const chainLog = `${dir}/chain.jsonl`;
    const chain = await runs(
      entries,
      new EventLog({ path: chainLog, source: "hooks" }),
      scaled(2_000),
    );
    const chainNull = await runs(entries, NULL_SINK, scaled(2_000));
    return {
      one_hook_null_sink: judged(nullSink, { p50_ms: TARGETS.single_p50_ms }),
      one_hook_event_log: {
        ...judged(logged, { p50_ms: TARGETS.single_p50_ms }),
        log_lines: await lines(log),
      },
      chain_of_5_event_log: {
        ...judged(chain, { p99_ms: TARGETS.chain5_p99_ms }),
        log_lines: await lines(chainLog),
      },
      chain_of_5_null_sink: judged(chainNull, { p99_ms: TARGETS.chain5_p99_ms }),
    };
  } finally {
    await Promise.all(entries.map((e) => e.executor.close()));
    await stopBundler();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
