/**
 * The poller's run loop: before each cycle the config is re-checked (hot reload of sources,
 * interval and routing policy), then one cycle runs, the ETag cache and `poll-status.json` are
 * written, and the loop sleeps the interval — or stops at once when the signal aborts (a stop
 * request ends a cycle between items, never inside one). A status file or ETag cache that cannot
 * be written does not stop the loop: `onStateError` is told (the daemon says so and is degraded).
 *
 * @module
 */
import { delay } from "../async/mod.ts";
import type { CycleReport, Poller } from "./poller.ts";
import type { PollSettings } from "./settings.ts";
import { lastCycleOf, type StatusKeeper } from "./status.ts";

/** Options of {@linkcode runLoop}. */
export interface LoopOptions {
  poller: Poller;
  /** The settings in force now (re-read before each cycle). */
  settings: () => Promise<PollSettings>;
  /** One cycle, then return. */
  once: boolean;
  /** Aborts the loop (between items, and during the sleep). */
  signal: AbortSignal;
  /** `--interval`: wins over the config's `polling.intervalSeconds`. */
  intervalSeconds?: number;
  /** Keeps `poll-status.json`; nothing is written when absent. */
  status?: StatusKeeper;
  /** Run after each cycle (the ETag cache's flush). */
  afterCycle?: (report: CycleReport) => Promise<void> | void;
  /**
   * Told when `afterCycle` or the status write failed (`what` names the file); absent: they
   * throw. Told `undefined` for a `what` that was written again.
   */
  onStateError?: (what: "status" | "after-cycle", error: unknown) => void;
  /** Told each cycle's report (after it is written). */
  onCycle?: (report: CycleReport) => void;
}

/** Waits `ms`, less when the signal aborts meanwhile; never rejects. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, { signal }).catch(() => {});
}

/** Runs cycles until `once` or the signal; returns how many ran. */
export async function runLoop(o: LoopOptions): Promise<{ cycles: number }> {
  let cycles = 0;
  const guarded = async (what: "status" | "after-cycle", step: () => Promise<void> | void) => {
    if (!o.onStateError) return await step();
    try {
      await step();
      o.onStateError(what, undefined);
    } catch (error) {
      o.onStateError(what, error);
    }
  };
  while (!o.signal.aborted || cycles === 0) {
    const settings = await o.settings();
    const intervalSeconds = o.intervalSeconds ?? settings.intervalSeconds;
    const report = await o.poller.cycle(settings, { signal: o.signal });
    cycles++;
    await guarded("after-cycle", () => o.afterCycle?.(report));
    const status = o.status;
    if (status) {
      await guarded("status", () =>
        status.update({
          lastCycleAt: new Date().toISOString(),
          intervalSeconds,
          lastCycle: lastCycleOf(report),
        }));
    }
    o.onCycle?.(report);
    if (o.once || o.signal.aborted) break;
    await sleep(intervalSeconds * 1000, o.signal);
  }
  return { cycles };
}
