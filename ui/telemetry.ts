/**
 * Hook telemetry, a pure core: from the `hooks.*` records of the event log's tail, per point and
 * hook, the calls (`hooks.ran`), their p50 and p99 latency (`duration_ms`, nearest rank), the
 * failures (`hooks.failed`), refusals (`hooks.refused`) and timeouts (`hooks.timed_out`); and
 * each hook's circuit from its file (`<state.root>/hooks/circuits/<hook>.json`: none is closed;
 * open until `retry_at`, then half-open: the next call is a probe).
 *
 * @example
 * ```ts
 * import { percentile } from "./telemetry.ts";
 * percentile([5, 1, 3], 0.5); // 3
 * ```
 *
 * @module
 */
import type { EventRecord } from "../events/mod.ts";
import type { CircuitRecord } from "../lifecycle/mod.ts";
import type { HookDecision, HookStat } from "./types.ts";

/** The `q` quantile of `values` by nearest rank; null when there are none. */
export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

const str = (v: unknown): string => typeof v === "string" ? v : "";

/** Which counter a `hooks.*` record adds to (the others are not counted here). */
const COUNTED: Record<string, "calls" | "failures" | "refusals" | "timeouts"> = {
  "hooks.ran": "calls",
  "hooks.failed": "failures",
  "hooks.refused": "refusals",
  "hooks.timed_out": "timeouts",
};

/** The circuit a hook's file says it is in at `now`. */
export function circuitOf(
  record: CircuitRecord | undefined,
  now: Date,
): Pick<HookStat, "circuit" | "circuitRetryAt"> {
  if (!record) return { circuit: "closed", circuitRetryAt: null };
  const open = Date.parse(record.retry_at) > now.getTime();
  return { circuit: open ? "open" : "half-open", circuitRetryAt: record.retry_at };
}

/** The telemetry of `events` (oldest first), sorted by point, then hook. */
export function hookStats(
  events: readonly EventRecord[],
  o: { circuits: ReadonlyMap<string, CircuitRecord>; now: Date; hooks?: readonly string[] },
): HookStat[] {
  const rows = new Map<string, HookStat & { durations: number[] }>();
  const rowOf = (point: string, hook: string) => {
    const key = `${point}\u0000${hook}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        point,
        hook,
        calls: 0,
        p50Ms: null,
        p99Ms: null,
        failures: 0,
        refusals: 0,
        timeouts: 0,
        ...circuitOf(o.circuits.get(hook), o.now),
        durations: [],
      };
      rows.set(key, row);
    }
    return row;
  };
  for (const r of events) {
    const counter = COUNTED[r.event];
    if (!counter) continue;
    const hook = str(r.hook);
    if (!hook) continue;
    const row = rowOf(str(r.point), hook);
    row[counter]++;
    if (counter === "calls" && typeof r.duration_ms === "number") row.durations.push(r.duration_ms);
  }
  // a declared hook not called yet, or one whose circuit is open, still has its row
  const seen = new Set([...rows.values()].map((r) => r.hook));
  for (const hook of new Set([...(o.hooks ?? []), ...o.circuits.keys()])) {
    if (!seen.has(hook)) rowOf("", hook);
  }
  return [...rows.values()]
    .map(({ durations, ...row }) => ({
      ...row,
      p50Ms: percentile(durations, 0.5),
      p99Ms: percentile(durations, 0.99),
    }))
    .sort((a, b) => a.point.localeCompare(b.point) || a.hook.localeCompare(b.hook));
}

/** The hook calls among `events` for one work item (oldest first). */
export function hookDecisions(events: readonly EventRecord[], ref: string): HookDecision[] {
  return events
    .filter((r) => r.event === "hooks.ran" && r.work_item === ref)
    .map((r) => ({
      ts: r.ts,
      point: str(r.point),
      hook: str(r.hook),
      kind: str(r.kind),
      disposition: str(r.disposition),
      durationMs: typeof r.duration_ms === "number" ? r.duration_ms : null,
      changed: Array.isArray(r.changed) ? r.changed.filter((c) => typeof c === "string") : [],
    }));
}
