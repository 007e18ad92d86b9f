/**
 * The poller's run loop: before each cycle the config is re-checked (hot reload of sources,
 * interval and routing policy), then one cycle runs, the ETag cache and `poll-status.json` are
 * written, and the loop sleeps the interval — or stops at once when the signal aborts (a stop
 * request ends a cycle between items, never inside one).
 *
 * @module
 */
import type { CycleReport, Poller } from "./poller.ts";
import type { PollSettings } from "./settings.ts";
import { writeStatus } from "./status.ts";

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
  /** Where `poll-status.json` goes (the state root); nothing is written when absent. */
  statusRoot?: string;
  /** Run after each cycle (the ETag cache's flush). */
  afterCycle?: (report: CycleReport) => Promise<void> | void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const id = setTimeout(done, ms);
    function done() {
      clearTimeout(id);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Runs cycles until `once` or the signal; returns how many ran. */
export async function runLoop(o: LoopOptions): Promise<{ cycles: number }> {
  const startedAt = new Date().toISOString();
  let cycles = 0;
  while (!o.signal.aborted || cycles === 0) {
    const settings = await o.settings();
    const intervalSeconds = o.intervalSeconds ?? settings.intervalSeconds;
    const report = await o.poller.cycle(settings, { signal: o.signal });
    cycles++;
    await o.afterCycle?.(report);
    if (o.statusRoot !== undefined) {
      await writeStatus(o.statusRoot, { startedAt, intervalSeconds, report });
    }
    if (o.once || o.signal.aborted) break;
    await sleep(intervalSeconds * 1000, o.signal);
  }
  return { cycles };
}
