/**
 * How often a refusal is written to the event log: the first of each reason in a window
 * ({@linkcode WINDOW_MS}), then none of that reason until the window has passed; the next record
 * of the reason says how many were left out (`suppressed`). A stranger without the secret can
 * send thousands of bad requests a second, and a full routing queue refuses as fast as requests
 * come: a record each would fill the disk, and cost the daemon its time exactly when it has none.
 * Internal errors (the receiver's own bugs) are always written.
 *
 * @module
 */

/** The window in which one refusal per reason is written. */
const WINDOW_MS = 1_000;

/** Decides which refusals are written. */
export class RejectionLog {
  readonly #now: () => number;
  readonly #last = new Map<string, { at: number; suppressed: number }>();

  /** `now`: a clock in milliseconds (tests pass their own). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * Whether a refusal for `reason` is written now; when it is, how many of that reason were left
   * out since the last one written (`undefined`: it is not written).
   */
  admit(reason: string): { suppressed: number } | undefined {
    if (reason === "internal-error") return { suppressed: 0 };
    const now = this.#now();
    const last = this.#last.get(reason);
    if (last && now - last.at < WINDOW_MS) {
      last.suppressed++;
      return undefined;
    }
    this.#last.set(reason, { at: now, suppressed: 0 });
    return { suppressed: last?.suppressed ?? 0 };
  }
}
