/**
 * Timers as cancels: {@linkcode later} runs a callback once after a time, {@linkcode every} at an
 * interval, and each returns the function that stops it (idempotent, harmless once it ran). For
 * what is neither a race nor a sleep: a kill at a budget's end, a socket's linger, a backoff's
 * restart, a throttled write, a watchdog. A wait that should end at a time goes through
 * `deadline.ts`; a pause, through `delay.ts`.
 *
 * ```ts
 * const cancel = later(() => stop("timeout"), timeoutMs);
 * try { … } finally { cancel(); }
 * ```
 *
 * @module
 */

/** Options of {@linkcode later} and {@linkcode every}. */
export interface TimerOptions {
  /** `false`: the timer does not keep the process alive (`Deno.unrefTimer`). Default `true`. */
  persistent?: boolean;
}

/** Runs `fn` once, `ms` from now; returns its cancel. */
export function later(fn: () => void, ms: number, opts: TimerOptions = {}): () => void {
  const id = setTimeout(fn, ms);
  if (opts.persistent === false) Deno.unrefTimer(id);
  return () => clearTimeout(id);
}

/** Runs `fn` every `ms` until cancelled; returns its cancel. */
export function every(fn: () => void, ms: number, opts: TimerOptions = {}): () => void {
  const id = setInterval(fn, ms);
  if (opts.persistent === false) Deno.unrefTimer(id);
  return () => clearInterval(id);
}
