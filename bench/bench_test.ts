import assert from "node:assert/strict";
import { taskArgs } from "../tests/_test_utils.ts";
import { measure } from "./_measure.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const hasTime = (() => {
  try {
    return Deno.statSync("/usr/bin/time").isFile;
  } catch {
    return false;
  }
})();

for (const rssMethod of ["time", "python3"] as const) {
  Deno.test({
    name: `measure reports the child's peak RSS (${rssMethod})`,
    ignore: rssMethod === "time" && !hasTime,
    fn: async () => {
      const cwd = Deno.makeTempDirSync();
      const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
      // a child that touches 80 MB: its peak RSS must show it, the wrapper's own must not hide it
      const m = await measure(["python3", "-c", "x = bytearray(80_000_000); print('ok')"], {
        cwd,
        env,
        runs: 2,
        rssMethod,
      });
      assert.equal(m.rss_method, rssMethod);
      assert.equal(m.runs, 2);
      assert.equal(m.stdout_bytes, 3);
      assert.ok(m.peak_rss_kib_median! >= 78_000, `peak RSS ${m.peak_rss_kib_median} KiB`);
      assert.ok(m.wall_ms_min > 0 && m.wall_ms_min <= m.wall_ms_median);
      await assert.rejects(
        measure(["python3", "-c", "import sys; sys.exit(3)"], { cwd, env, runs: 1, rssMethod }),
        /failed \(exit 3\)/,
      );
    },
  });
}

Deno.test("deno task bench prints one JSON object with every bench's figures", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...taskArgs().filter((a) => !a.endsWith("main.ts")), `${ROOT}bench/mod.ts`],
    env: {
      THE_LOOP_BENCH_RUNS: "1",
      THE_LOOP_BENCH_EVENT_LINES: "3000",
      THE_LOOP_BENCH_QUICK: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(result.cli_start.version.stdout_bytes > 0, true);
  assert.equal(result.events_query.log_lines, 3000);
  const { hooks_runner: runner, hooks_module: mod } = result;
  for (
    const [figures, key, target] of [
      [mod.worker_calls, "target_p50_ms", 0.2],
      [runner.one_hook_null_sink, "target_p50_ms", 0.2],
      [runner.one_hook_event_log, "target_p50_ms", 0.2],
      [runner.chain_of_5_event_log, "target_p99_ms", 2],
    ] as const
  ) {
    assert.equal(figures[key], target);
    assert.equal(typeof figures.meets_target, "boolean");
    assert.ok(figures.calls >= 10 && figures.p50_ms > 0 && figures.p99_ms >= figures.p50_ms);
  }
  // one hooks.ran line per call, warm-up included
  assert.ok(runner.chain_of_5_event_log.log_lines >= 5 * runner.chain_of_5_event_log.calls);
  assert.ok(result.hooks_remote_command.hooks_remote_call.p50_ms > 0);
  assert.equal(result.hooks_idle_rss.hooks, 10);
  assert.ok(result.hooks_idle_rss.rss_after_kib > result.hooks_idle_rss.rss_at_start_kib);
  assert.equal(result.hooks_cli_start.hooks_json.error, undefined);
  // the idle poll cycle: one request per repo, every one a 304 (a count, not a timing)
  assert.equal(result.poll_idle_cycle.requests, 20);
  assert.equal(result.poll_idle_cycle.not_modified, 20);
  // a gathered burst is one frame: its prompt far smaller than the old join of whole prompts
  for (const name of ["comments_10", "mixed_20"]) {
    const b = result.burst_prompt[name];
    assert.ok(b.after_bytes > b.excerpt_bytes && b.before_over_after >= 2, JSON.stringify(b));
  }
  // the SIGKILL trials of the inbox: nothing lost, every repeat flagged
  assert.equal(result.webhook_crash.lost, 0);
  assert.equal(result.webhook_crash.unflagged, 0);
  assert.ok(result.webhook_crash.max_repeated_batches_per_session <= 1);
  // webhook ingest: both runs measured and reported, with signatures on
  const ingest = result.webhook_ingest;
  assert.equal(ingest.signatures, true);
  assert.equal(ingest.connections, 64);
  for (const run of [ingest.route, ingest.no_route, ingest.route_without_inbox]) {
    assert.ok(run.requests > 0 && run.p50_ms > 0 && run.p99_ms >= run.p50_ms, JSON.stringify(run));
    assert.equal(run.errors, 0);
  }
  assert.ok(ingest.route.routed > 0, "routed deliveries reach the dispatcher");
  assert.equal(typeof ingest.meets_target, "boolean");
  // the paced run: routing on, at the target's rate, its own send lag reported
  const paced = ingest.route_at_target_rate;
  assert.ok(paced.requests > 0 && paced.p99_ms >= paced.p50_ms, JSON.stringify(paced));
  assert.equal(paced.errors, 0);
  assert.ok(paced.send_lag_p99_ms >= paced.send_lag_p50_ms && paced.send_lag_p50_ms >= 0);
  assert.equal(typeof ingest.meets_target_at_rate, "boolean");
  // the paced sweep: the lower rates, then the target's, each with the cores both sides used
  assert.deepEqual(ingest.route_paced_sweep.map((r: { rate: number }) => r.rate), [
    1_000,
    2_500,
    5_000,
  ]);
  for (const r of ingest.route_paced_sweep) {
    assert.ok(r.p99_ms >= r.p50_ms && r.p50_ms > 0, JSON.stringify(r));
    assert.ok(r.receiver_cores > 0 && r.loader_cores > 0, JSON.stringify(r));
  }
  assert.ok(result.hooks_cli_start.hooks_json.stdout_bytes > 0);
  // POST → harness invoked over 20 tmux sessions: both modes measured, nothing lost or misdelivered
  const loop = result.loop_latency;
  assert.equal(loop.sessions, 20);
  assert.equal(loop.target_burst_p99_ms, 100);
  assert.equal(typeof loop.meets_target, "boolean");
  for (const mode of [loop.serial, loop.burst]) {
    assert.equal(mode.events, 40, JSON.stringify(mode));
    assert.deepEqual([mode.lost, mode.misdelivered], [0, 0]);
    assert.ok(mode.p50_ms > 0 && mode.p99_ms >= mode.p50_ms && mode.max_ms >= mode.p99_ms);
  }
  // the burst's CPU, part by part: each part ran, and they add up to the total
  const cpu = loop.burst.cpu_ms;
  for (const part of ["receiver", "tmux_server", "harnesses", "bench"]) {
    assert.ok(cpu[part] > 0, `${part}: ${JSON.stringify(cpu)}`);
  }
  const sum = cpu.receiver + cpu.tmux_server + cpu.harnesses + cpu.bench;
  assert.ok(Math.abs(cpu.total - sum) < 0.1, JSON.stringify(cpu));
  assert.ok(cpu.wall > 0 && cpu.cores_busy > 0, JSON.stringify(cpu));
  for (
    const m of [
      result.cli_start.version,
      result.events_query.limit_50,
      result.events_query.type_filter_limit_50,
      result.hooks_cli_start.hooks_json,
    ]
  ) {
    assert.equal(m.runs, 1);
    assert.ok(m.wall_ms_median > 0);
    assert.ok(m.peak_rss_kib_median === null || m.peak_rss_kib_median > 10_000);
  }
});
