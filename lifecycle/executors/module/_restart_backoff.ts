/**
 * How often a module hook's worker (or hook-host process) is started again after it died on
 * its own — an uncaught error in a timer, an unhandled rejection, a child that exited. Without
 * a bound, a hook whose every worker dies at once restarts hundreds of times a second.
 *
 * The n-th death in a row waits `delay(n)` before the next start: none for the first (a
 * one-off crash costs nothing), then `baseMs · 2^(n−2)` capped at `maxMs`, with equal jitter
 * (half of it fixed, half random), so hooks that die together do not restart in lockstep. The
 * first `eager` restarts in a row happen on their own, so the hook is warm for its next call;
 * after that the executor stays down and a call that comes once the delay has passed starts
 * it (a call before then fails at once, saying when). A worker that ran `stableMs` before it
 * died starts a new count. The runner's circuit breaker stops the calls of a hook that keeps
 * failing, so a hook that dies on its own restarts a bounded number of times.
 *
 * @module
 */
import type { ExecutorStatus } from "../../executor.ts";
import { backoffText } from "../../_messages.ts";

/** The numbers of the backoff. */
export interface RestartPolicy {
  /** The delay before the second restart in a row, ms; it doubles with each death after. */
  baseMs: number;
  /** The longest delay, ms. */
  maxMs: number;
  /** How many restarts in a row happen on their own; later ones wait for a call. */
  eager: number;
  /** A worker or process that ran this long (ms) before it died starts a new count. */
  stableMs: number;
}

/** The defaults: 0, 0.1, 0.2, 0.4 … s, at most 30 s; 3 restarts on their own; 60 s is stable. */
export const RESTART_POLICY: RestartPolicy = {
  baseMs: 100,
  maxMs: 30_000,
  eager: 3,
  stableMs: 60_000,
};

/** Where the backoff reads time and randomness; injected by tests. */
export interface RestartClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** A number in [0, 1). */
  random(): number;
}

const REAL_CLOCK: RestartClock = { now: () => performance.now(), random: Math.random };

/** The delay before the next start after the `streak`-th death in a row, ms. */
export function restartDelay(streak: number, policy: RestartPolicy, random: number): number {
  if (streak <= 1) return 0;
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** (streak - 2));
  return Math.round(full / 2 + random * (full / 2));
}

/** What to do after a death. */
export interface RestartPlan {
  /** Wait this long (ms) before the next start. */
  delayMs: number;
  /** Start again on its own after the delay (else: at the first call after it). */
  eager: boolean;
}

/** The backoff state of one executor. */
export class RestartBackoff {
  readonly #policy: RestartPolicy;
  readonly #clock: RestartClock;
  #streak = 0;
  #startedAt: number;
  #notBefore = 0;
  #last?: string;
  #restarts = 0;

  constructor(policy: Partial<RestartPolicy> = {}, clock: Partial<RestartClock> = {}) {
    this.#policy = { ...RESTART_POLICY, ...policy };
    this.#clock = { ...REAL_CLOCK, ...clock };
    this.#startedAt = this.#clock.now();
  }

  /** Deaths in a row. */
  get streak(): number {
    return this.#streak;
  }

  /** Starts after the first one. */
  get restarts(): number {
    return this.#restarts;
  }

  /** What the last death was. */
  get last(): string | undefined {
    return this.#last;
  }

  /** Records a start; `restart` when it replaces a worker or process that ran before. */
  started(restart: boolean): void {
    this.#startedAt = this.#clock.now();
    if (restart) this.#restarts++;
  }

  /** Records a death (`why`, one line) and says when to start again. */
  died(why: string): RestartPlan {
    const now = this.#clock.now();
    if (now - this.#startedAt >= this.#policy.stableMs) this.#streak = 0;
    this.#streak++;
    this.#last = why;
    const delayMs = restartDelay(this.#streak, this.#policy, this.#clock.random());
    this.#notBefore = now + delayMs;
    return { delayMs, eager: this.#streak <= this.#policy.eager };
  }

  /** How long (ms) until a start is allowed; 0 when it is. */
  waitMs(): number {
    return Math.max(0, this.#notBefore - this.#clock.now());
  }

  /**
   * Must a call fail at once? Yes while the start is not allowed yet — unless it is the circuit
   * breaker's probe, which the circuit's cool-down has paced already.
   */
  holdsOff(probe: boolean | undefined): boolean {
    return this.waitMs() > 0 && !probe;
  }

  /** Why a call fails at once while the start is not allowed yet. */
  describe(what: "worker" | "process"): string {
    return backoffText(what, this.#streak, this.#last, this.waitMs());
  }

  /** The executor's status, in `state`. */
  status(state: ExecutorStatus["state"]): ExecutorStatus {
    return {
      restarts: this.#restarts,
      crashes: this.#streak,
      ...(this.#last !== undefined ? { lastCrash: this.#last } : {}),
      state,
    };
  }
}
