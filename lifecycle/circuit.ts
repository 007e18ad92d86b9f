/**
 * The circuit breaker the runner keeps for each hook, of any kind. `closed`: calls go through.
 * After `failures` failed or timed-out calls in a row within `windowMs` it OPENS: calls are not
 * made (a required hook's operation is refused — it fails closed) until `coolDownMs` has
 * passed. Then it is HALF-OPEN: one call goes through as a probe (the executor may start a
 * worker it was holding back for it); if it works the circuit closes, if not it opens again
 * with twice the cool-down, up to `maxCoolDownMs`. A reset (`the-loop hooks reset`) makes an
 * open circuit half-open at once; a reload (the engine configured again) starts closed.
 *
 * Pure state, no I/O: the runner reads the clock, writes the events and persists the state.
 *
 * @module
 */

/** The breaker's numbers. */
export interface CircuitPolicy {
  /** Failures in a row that open the circuit. */
  failures: number;
  /** …counted within this long (ms): an older failure is forgotten. */
  windowMs: number;
  /** How long (ms) the circuit stays open the first time before one probe call is let through. */
  coolDownMs: number;
  /** The cool-down doubles after each failed probe, up to this (ms). */
  maxCoolDownMs: number;
}

/** The defaults: 5 failures within 60 s open it; 30 s, doubling to at most 10 min, before a probe. */
export const CIRCUIT_POLICY: CircuitPolicy = {
  failures: 5,
  windowMs: 60_000,
  coolDownMs: 30_000,
  maxCoolDownMs: 600_000,
};

/** What re-armed an open circuit. */
export type Rearm = "cool-down" | "reset" | "reload";

/** What the runner should do with one call. */
export type Admission =
  | { kind: "call" }
  | { kind: "probe"; after: Exclude<Rearm, "reload"> }
  | { kind: "skip" };

/** A state change the runner reports. */
export type Transition =
  | {
    kind: "opened";
    /** Failures in a row: those that opened it, plus any failed probes since. */
    failures: number;
    lastError: string;
    openedAt: number;
    retryAt: number;
    coolDownMs: number;
    /** The circuit opened again because its probe failed. */
    reopened: boolean;
  }
  | {
    kind: "closed";
    after: Rearm;
    openedAt: number;
    /** Calls skipped while it was open. */
    skipped: number;
  };

/** The breaker's state, as `Runner.circuits()` reports it. */
export interface CircuitStatus {
  hook: string;
  state: "closed" | "open" | "half_open";
  /** Failures in a row so far (closed), or that opened it (open). */
  failures: number;
  /** Epoch ms; set unless closed. */
  openedAt?: number;
  /** Epoch ms after which a probe is let through; set while open. */
  retryAt?: number;
  lastError?: string;
  /** Calls skipped since it opened. */
  skipped: number;
}

/** One hook's breaker. Times are the runner's clock (epoch ms). */
export class Breaker {
  readonly hook: string;
  readonly #policy: CircuitPolicy;
  #state: "closed" | "open" | "half_open" = "closed";
  #failures: number[] = [];
  #openedAt = 0;
  #retryAt = 0;
  #coolDownMs: number;
  #lastError = "";
  #skipped = 0;
  #openFailures = 0;
  #probing = false;
  #rearmedBy: Exclude<Rearm, "reload"> = "cool-down";

  constructor(hook: string, policy: Partial<CircuitPolicy> = {}) {
    this.hook = hook;
    this.#policy = { ...CIRCUIT_POLICY, ...policy };
    this.#coolDownMs = this.#policy.coolDownMs;
  }

  /** Is it open (calls skipped until the cool-down passes or a reset)? */
  get open(): boolean {
    return this.#state === "open";
  }

  /** The state for reports. */
  status(): CircuitStatus {
    const closed = this.#state === "closed";
    return {
      hook: this.hook,
      state: this.#state,
      failures: closed ? this.#failures.length : this.#openFailures,
      ...(closed ? {} : { openedAt: this.#openedAt }),
      ...(this.#state === "open" ? { retryAt: this.#retryAt } : {}),
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
      skipped: this.#skipped,
    };
  }

  /** An open circuit was reset from outside: its next call is a probe. */
  reset(): void {
    if (this.#state !== "open") return;
    this.#state = "half_open";
    this.#rearmedBy = "reset";
  }

  /** May a call at `now` go through? A probe must be answered with succeeded() or failed(). */
  admit(now: number): Admission {
    if (this.#state === "open" && now >= this.#retryAt) {
      this.#state = "half_open";
      this.#rearmedBy = "cool-down";
    }
    if (this.#state === "closed") return { kind: "call" };
    if (this.#state === "half_open" && !this.#probing) {
      this.#probing = true;
      return { kind: "probe", after: this.#rearmedBy };
    }
    this.#skipped++;
    return { kind: "skip" };
  }

  /**
   * A call worked; `probe` when it was the one {@linkcode admit} let through half-open. (A call
   * admitted before the circuit opened changes nothing once it has.)
   */
  succeeded(probe = false): Transition | undefined {
    if (this.#state === "closed") {
      this.#failures = [];
      return undefined;
    }
    if (!probe || this.#state !== "half_open") return undefined;
    this.#probing = false;
    const t: Transition = {
      kind: "closed",
      after: this.#rearmedBy,
      openedAt: this.#openedAt,
      skipped: this.#skipped,
    };
    this.#close();
    return t;
  }

  /** A call failed or timed out with `error` (one line, redacted); `probe` as for succeeded(). */
  failed(now: number, error: string, probe = false): Transition | undefined {
    if (probe && this.#state === "half_open") {
      this.#lastError = error;
      this.#probing = false;
      this.#coolDownMs = Math.min(this.#policy.maxCoolDownMs, this.#coolDownMs * 2);
      return this.#open(now, this.#openFailures + 1, true);
    }
    if (this.#state !== "closed") return undefined; // a call that began before it opened
    this.#lastError = error;
    this.#failures = this.#failures.filter((t) => now - t < this.#policy.windowMs);
    this.#failures.push(now);
    if (this.#failures.length < this.#policy.failures) return undefined;
    return this.#open(now, this.#failures.length, false);
  }

  #open(now: number, failures: number, reopened: boolean): Transition {
    this.#state = "open";
    if (!reopened) {
      this.#openedAt = now;
      this.#skipped = 0;
    }
    this.#openFailures = failures;
    this.#retryAt = now + this.#coolDownMs;
    this.#failures = [];
    return {
      kind: "opened",
      failures,
      lastError: this.#lastError,
      openedAt: this.#openedAt,
      retryAt: this.#retryAt,
      coolDownMs: this.#coolDownMs,
      reopened,
    };
  }

  #close(): void {
    this.#state = "closed";
    this.#failures = [];
    this.#coolDownMs = this.#policy.coolDownMs;
    this.#openFailures = 0;
    this.#skipped = 0;
    this.#lastError = "";
  }
}
