/**
 * Paced flushing: a writer that batches work ("flush what is pending") runs it at the end of the
 * current tick of the event loop when it has been quiet for `intervalMs`, and otherwise at most
 * once every `intervalMs`. A lone request is written at once; under load, many are written
 * together, so a busy thread makes one system call per interval instead of one per request.
 *
 * @module
 */
import { later } from "./later.ts";

/** Options of {@linkcode pacer}. */
export interface PacerOptions {
  /** The least time (ms) between two runs under load; 0 runs at the end of every tick. */
  intervalMs: number;
  /** The clock (ms); for tests. */
  now?: () => number;
  /** Schedules the run `ms` from now and returns its cancel; for tests. Default {@linkcode later}. */
  later?: (run: () => void, ms: number) => () => void;
}

/**
 * Returns `schedule`: call it when work becomes pending; `flush` then runs once, at the end of
 * this tick or when the interval since its last run is up, whichever is later. Calls while a run
 * is already scheduled add nothing. A `flush` the owner calls itself should call `ran()`, which
 * drops the scheduled run (nothing is left for it) and counts the interval from there; no timer
 * is left behind.
 */
export function pacer(
  flush: () => void,
  opts: PacerOptions,
): { schedule(): void; ran(): void } {
  const now = opts.now ?? (() => performance.now());
  const after = opts.later ?? later;
  let lastRun = -Infinity;
  let scheduled = false;
  let cancel: (() => void) | undefined;
  const reset = () => {
    scheduled = false;
    cancel?.();
    cancel = undefined;
    lastRun = now();
  };
  const run = () => {
    if (!scheduled) return; // the owner flushed first (ran)
    reset();
    flush();
  };
  return {
    schedule() {
      if (scheduled) return;
      scheduled = true;
      const wait = lastRun + opts.intervalMs - now();
      if (wait <= 0) queueMicrotask(run);
      else cancel = after(run, wait);
    },
    ran: reset,
  };
}
