/**
 * Time budgets for waits, in the spirit of `@std/async`'s `deadline` and `abortable`: a promise
 * raced against a timer that is always cleared, rejecting with {@linkcode DeadlineError} when the
 * time runs out first. Every hook timeout goes through it (module workers and processes, command
 * runs, remote requests), and so does every bounded wait of the daemons (a drain, a shutdown's
 * grace, a tmux answer). It never stops the work itself: the caller does that (terminates a
 * worker, kills a process group, aborts a fetch); `with_deadline.ts` also hands the call a signal.
 *
 * ```ts
 * const d = new Deadline(opts.timeoutMs); // one budget for both waits of a call
 * try {
 *   await d.race(loaded);
 *   return await d.race(answer());
 * } catch (err) {
 *   if (err instanceof DeadlineError) … // stop what was started
 * } finally {
 *   d.clear();
 * }
 * ```
 *
 * @module
 */

/** A wait ran past its time budget. */
export class DeadlineError extends Error {
  override name = "DeadlineError";
  /** The budget, in milliseconds. */
  readonly ms: number;
  constructor(ms: number) {
    super(`no result within ${ms} ms`);
    this.ms = ms;
  }
}

/**
 * One time budget, started when it is made and shared by any number of awaits. `undefined`
 * never runs out. {@linkcode Deadline.clear} cancels its timer; call it when the work is done.
 */
export class Deadline {
  readonly ms: number | undefined;
  #timer?: ReturnType<typeof setTimeout>;
  #expired = false;
  #waiting = new Set<(err: DeadlineError) => void>();
  #ctl?: AbortController;

  constructor(ms: number | undefined) {
    this.ms = ms;
    if (ms !== undefined) this.#timer = setTimeout(() => this.#expire(), Math.max(0, ms));
  }

  /** Has the time run out? */
  get expired(): boolean {
    return this.#expired;
  }

  /** Aborted with a {@linkcode DeadlineError} when the time runs out (for `fetch`). */
  get signal(): AbortSignal {
    this.#ctl ??= new AbortController();
    if (this.#expired && !this.#ctl.signal.aborted) this.#ctl.abort(this.#error());
    return this.#ctl.signal;
  }

  /**
   * `p`'s result, or a rejection with {@linkcode DeadlineError} if the time runs out first (at
   * once when it has already). A later rejection of `p` is absorbed.
   */
  race<T>(p: Promise<T>): Promise<T> {
    if (this.#expired) {
      p.catch(() => {});
      return Promise.reject(this.#error());
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.add(reject);
      p.then(resolve, reject).finally(() => this.#waiting.delete(reject));
    });
  }

  /** Cancels the timer. Idempotent. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #error(): DeadlineError {
    return new DeadlineError(this.ms ?? Infinity);
  }

  #expire(): void {
    this.#expired = true;
    this.#timer = undefined;
    const err = this.#error();
    for (const reject of this.#waiting) reject(err);
    this.#waiting.clear();
    this.#ctl?.abort(err);
  }
}

/**
 * `p`'s result, or a rejection with {@linkcode DeadlineError} after `ms` (`undefined`: no
 * limit). The timer is cleared either way.
 */
export async function deadline<T>(p: Promise<T>, ms: number | undefined): Promise<T> {
  const d = new Deadline(ms);
  try {
    return await d.race(p);
  } finally {
    d.clear();
  }
}

/** Waits for `p` to settle, either way, but no longer than `ms`: true if it did. Never rejects. */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return deadline(p.then(() => true, () => true), ms).catch(() => false);
}
