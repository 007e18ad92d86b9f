/**
 * A call under a time budget and an outer signal: the call is handed a signal that is aborted
 * at the deadline (with the `onTimeout` error) or when the outer signal is, and the caller stops
 * waiting at that moment even when the call does not listen (its later result or rejection is
 * absorbed). The timer and the listener on the outer signal go with the call: the outer signal
 * (the daemon's) may live for many calls.
 *
 * ```ts
 * return await withDeadline((signal) => runner.spawn(session, { signal }), {
 *   ms: seconds * 1000,
 *   signal: shutdown,
 *   onTimeout: () => new DispatchTimeout("spawn", seconds),
 * });
 * ```
 *
 * @module
 */
import { DeadlineError } from "./deadline.ts";
import { later } from "./later.ts";

/** Options of {@linkcode withDeadline}. */
export interface WithDeadlineOptions {
  /** The budget, in milliseconds. */
  ms: number;
  /** Aborting it aborts the call's signal and rejects with its reason. */
  signal?: AbortSignal;
  /**
   * The error the call's signal is aborted with, and the promise rejects with, at the deadline.
   * Default {@linkcode DeadlineError}.
   */
  onTimeout?: () => unknown;
}

/**
 * `fn(signal)`'s result, or a rejection: with `onTimeout()` once `ms` have passed, with the
 * outer signal's reason once it is aborted (at once, without calling `fn`, when it already is).
 */
export async function withDeadline<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  opts: WithDeadlineOptions,
): Promise<T> {
  const outer = opts.signal;
  if (outer?.aborted) throw outer.reason; // nothing starts once the outer signal is aborted
  const ctl = new AbortController();
  const signal = outer ? AbortSignal.any([ctl.signal, outer]) : ctl.signal;
  const stop = Promise.withResolvers<never>();
  stop.promise.catch(() => {});
  const onAbort = () => stop.reject(outer!.reason);
  const cancel = later(() => {
    const err = opts.onTimeout ? opts.onTimeout() : new DeadlineError(opts.ms);
    ctl.abort(err);
    stop.reject(err);
  }, opts.ms);
  outer?.addEventListener("abort", onAbort, { once: true });
  try {
    const call = fn(signal);
    call.catch(() => {}); // the deadline may have answered already
    return await Promise.race([call, stop.promise]);
  } finally {
    cancel();
    outer?.removeEventListener("abort", onAbort);
  }
}
