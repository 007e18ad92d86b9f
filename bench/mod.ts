/**
 * `deno task bench`: runs every bench module and prints ONE JSON object to stdout, each
 * module's results under its name (progress goes to stderr). To add a bench, write a module
 * exporting `run(): Promise<Record<string, unknown>>` and list it in {@linkcode BENCHES}.
 * `THE_LOOP_BENCH_ONLY=name,name` runs a subset; `THE_LOOP_BENCH_QUICK=1` makes the hook benches
 * do a hundredth of their calls (to check the output, not to measure). Figures the issue sets a
 * target for carry it beside them: `target_p50_ms` / `target_p99_ms` and `meets_target`.
 *
 * @module
 */
import * as burstPrompt from "./burst_prompt.ts";
import * as cliStart from "./cli_start.ts";
import * as configLoad from "./config_load.ts";
import * as eventsLongLine from "./events_long_line.ts";
import * as eventsQuery from "./events_query.ts";
import * as hooksCliStart from "./hooks_cli_start.ts";
import * as hooksIdleRss from "./hooks_idle_rss.ts";
import * as hooksModule from "./hooks_module_bench.ts";
import * as hooksRemoteCommand from "./hooks_remote_command_bench.ts";
import * as hooksRunner from "./hooks_runner_bench.ts";
import * as hooksValidate from "./hooks_validate_bench.ts";
import * as loopLatency from "./loop_latency.ts";
import * as webhookCrash from "./webhook_crash.ts";
import * as webhookIngest from "./webhook_ingest.ts";
import * as pollIdleCycle from "./poll_idle_cycle.ts";
import * as workspaceCost from "./workspace_cost.ts";

/** One bench: measures something and returns its figures. */
export interface BenchModule {
  run(): Promise<Record<string, unknown>>;
}

/** Every bench, by the name its results appear under. */
export const BENCHES: Record<string, BenchModule> = {
  cli_start: cliStart,
  config_load: configLoad,
  events_query: eventsQuery,
  events_long_line: eventsLongLine,
  hooks_module: hooksModule,
  hooks_runner: hooksRunner,
  hooks_remote_command: hooksRemoteCommand,
  hooks_idle_rss: hooksIdleRss,
  hooks_cli_start: hooksCliStart,
  hooks_validate: hooksValidate,
  webhook_ingest: webhookIngest,
  webhook_crash: webhookCrash,
  poll_idle_cycle: pollIdleCycle,
  workspace_cost: workspaceCost,
  burst_prompt: burstPrompt,
  loop_latency: loopLatency,
};

/** Runs the benches named in `only` (default: all), in order. */
export async function runBenches(only?: string[]): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {
    deno: Deno.version.deno,
    os: Deno.build.os,
    arch: Deno.build.arch,
    started: new Date().toISOString(),
  };
  for (const [name, mod] of Object.entries(BENCHES)) {
    if (only && !only.includes(name)) continue;
    console.error(`bench: ${name} …`);
    const start = performance.now();
    results[name] = await mod.run();
    console.error(`bench: ${name} done in ${Math.round(performance.now() - start)} ms`);
  }
  return results;
}

if (import.meta.main) {
  const only = Deno.env.get("THE_LOOP_BENCH_ONLY")?.split(",").map((s) => s.trim());
  console.log(JSON.stringify(await runBenches(only), null, 2));
}
