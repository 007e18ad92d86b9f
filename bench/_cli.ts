/**
 * How benches start the CLI: with the `the-loop` task's flags (as users and tests run it), a
 * clean environment and a working directory of their own.
 *
 * @module
 */
import { baseEnv, taskArgs } from "../tests/_test_utils.ts";
import { measure, type Measurement } from "./_measure.ts";

/** How many times each command runs; `THE_LOOP_BENCH_RUNS` overrides the default 5. */
export function benchRuns(): number {
  const n = Number(Deno.env.get("THE_LOOP_BENCH_RUNS") ?? 5);
  return Number.isInteger(n) && n > 0 ? n : 5;
}

/** Measures `the-loop <args>` run from `cwd`. */
export function measureCli(args: string[], cwd: string): Promise<Measurement> {
  return measure([Deno.execPath(), ...taskArgs(), ...args], {
    cwd,
    env: baseEnv(cwd),
    runs: benchRuns(),
  });
}
