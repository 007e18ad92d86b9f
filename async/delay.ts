/**
 * An abortable sleep, `@std/async`'s `delay`: resolves after `ms`, or rejects with the signal's
 * reason as soon as it is aborted (at once when it already is). Its timer and its listener go
 * either way, so a long-lived signal (the daemon's) collects nothing from many sleeps.
 *
 * ```ts
 * await delay(50); // a poll's pause
 * await delay(ms, { signal }).catch(() => {}); // a pause a shutdown cuts short
 * ```
 *
 * @module
 */

/** Options of {@linkcode delay}. */
export interface DelayOptions {
  /** Ends the wait early: the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** `false`: the timer does not keep the process alive (`Deno.unrefTimer`). Default `true`. */
  persistent?: boolean;
}

/** Resolves after `ms` milliseconds; rejects with `signal.reason` once the signal is aborted. */
export function delay(ms: number, opts: DelayOptions = {}): Promise<void> {
  const { signal, persistent = true } = opts;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const abort = () => {
      clearTimeout(id);
      reject(signal!.reason);
    };
    const id = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (!persistent) Deno.unrefTimer(id);
    signal?.addEventListener("abort", abort, { once: true });
  });
}
