/**
 * Latency figures for the hook benches: percentiles over sequential calls, rounded to the
 * microsecond, and the targets reported next to the figures they judge.
 *
 * @module
 */

/** The p-th percentile (0..100) of ascending `sorted`, nearest rank. */
export function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** Milliseconds rounded to the microsecond. */
export const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** How long `fn` took, in milliseconds. */
export async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Latency of `calls` sequential calls (after `warmup` untimed ones). */
export interface Latency {
  calls: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** Options for {@linkcode latency}. */
export interface LatencyOptions {
  calls: number;
  warmup: number;
  /** Runs before each call, untimed (e.g. building a fresh context). */
  prepare?: () => void;
}

/** Times `fn` over `opts.calls` sequential calls. */
export async function latency(
  fn: () => Promise<unknown>,
  opts: LatencyOptions,
): Promise<Latency> {
  for (let i = 0; i < opts.warmup; i++) {
    opts.prepare?.();
    await fn();
  }
  const ms = new Array<number>(opts.calls);
  for (let i = 0; i < opts.calls; i++) {
    opts.prepare?.();
    const t = performance.now();
    await fn();
    ms[i] = performance.now() - t;
  }
  ms.sort((a, b) => a - b);
  return {
    calls: opts.calls,
    p50_ms: round(percentile(ms, 50)),
    p99_ms: round(percentile(ms, 99)),
    max_ms: round(ms[ms.length - 1]),
  };
}

/** A target of the issue: the most a percentile may be, in milliseconds. */
export interface Target {
  p50_ms?: number;
  p99_ms?: number;
}

/** `figures` with `target_p50_ms` / `target_p99_ms` and whether every target is met. */
export function judged(figures: Latency, target: Target): Record<string, unknown> {
  const out: Record<string, unknown> = { ...figures };
  let meets = true;
  if (target.p50_ms !== undefined) {
    out.target_p50_ms = target.p50_ms;
    meets &&= figures.p50_ms <= target.p50_ms;
  }
  if (target.p99_ms !== undefined) {
    out.target_p99_ms = target.p99_ms;
    meets &&= figures.p99_ms <= target.p99_ms;
  }
  out.meets_target = meets;
  return out;
}

/**
 * `n`, or a hundredth of it (at least `min`) when `THE_LOOP_BENCH_QUICK` is set: the bench's
 * own test runs every bench that way, to check its output, not to measure.
 */
export function scaled(n: number, min = 10): number {
  return Deno.env.get("THE_LOOP_BENCH_QUICK") ? Math.max(min, Math.ceil(n / 100)) : n;
}
