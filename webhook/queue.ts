/**
 * The bounded queue between accepting a delivery and routing it: the HTTP answer (202) never
 * waits for routing. A fixed number of workers take jobs in arrival order. The queue is bounded
 * twice, by jobs and by the bytes of their bodies, so a burst of large deliveries cannot exhaust
 * memory; a full queue refuses the job (the receiver answers 503 with `Retry-After`).
 *
 * On close, no job is taken any more; queued and running jobs get a bounded time to finish, then
 * the running ones are aborted (their signal fires) and whatever did not finish is handed back.
 *
 * @module
 */
import { settlesWithin } from "../async/mod.ts";

/** Options of {@linkcode RouteQueue}. */
export interface RouteQueueOptions<T> {
  /** Runs one job; `signal` fires when a closing queue runs out of time. */
  run(job: T, signal: AbortSignal): Promise<void>;
  /** Told when `run` throws (the queue carries on). */
  onError(job: T, error: unknown): void;
  /** Most jobs waiting (not counting running ones). Default {@linkcode DEFAULT_QUEUE_JOBS}. */
  maxJobs?: number;
  /** Most body bytes waiting and running. Default {@linkcode DEFAULT_QUEUE_BYTES}. */
  maxBytes?: number;
  /** Jobs run at once. Default {@linkcode DEFAULT_QUEUE_WORKERS}. */
  workers?: number;
}

/** Default bound on waiting deliveries. */
export const DEFAULT_QUEUE_JOBS = 1024;
/** Default bound on the bytes of waiting and running deliveries (64 MiB). */
export const DEFAULT_QUEUE_BYTES = 64 * 1024 * 1024;
/** Default number of deliveries routed at once. */
export const DEFAULT_QUEUE_WORKERS = 256;

/** What {@linkcode RouteQueue.close} left. */
export interface CloseResult<T> {
  /** Jobs that finished during the close. */
  finished: number;
  /** Jobs that had not finished by the deadline (never started, or aborted while running). */
  handedBack: T[];
}

interface Entry<T> {
  job: T;
  bytes: number;
}

/**
 * Whether a job of `bytes` body bytes fits beside `held` jobs holding `heldBytes`, under bounds of
 * `maxJobs` jobs and `maxBytes` bytes. One job larger than the byte bound still fits when nothing
 * else is held.
 */
export function fits(
  held: { jobs: number; bytes: number },
  bytes: number,
  bounds: { maxJobs: number; maxBytes: number },
): boolean {
  if (held.jobs >= bounds.maxJobs) return false;
  return held.bytes === 0 || held.bytes + bytes <= bounds.maxBytes;
}

/** A bounded FIFO of jobs with a fixed number of workers. */
export class RouteQueue<T> {
  readonly #opts: Required<RouteQueueOptions<T>>;
  readonly #waiting: Entry<T>[] = [];
  #head = 0;
  readonly #running = new Set<Entry<T>>();
  #bytes = 0;
  #closed = false;
  #finished = 0;
  readonly #abort = new AbortController();
  #idle?: () => void;

  constructor(opts: RouteQueueOptions<T>) {
    this.#opts = {
      maxJobs: DEFAULT_QUEUE_JOBS,
      maxBytes: DEFAULT_QUEUE_BYTES,
      workers: DEFAULT_QUEUE_WORKERS,
      ...opts,
    };
  }

  /** Jobs waiting to run. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Queues a job of `bytes` body bytes; false when the queue is full or closed. */
  offer(job: T, bytes = 0): boolean {
    if (this.#closed) return false;
    if (!fits({ jobs: this.waiting, bytes: this.#bytes }, bytes, this.#opts)) return false;
    this.#waiting.push({ job, bytes });
    this.#bytes += bytes;
    this.#pump();
    return true;
  }

  #pump(): void {
    while (this.#running.size < this.#opts.workers && this.waiting > 0) {
      const entry = this.#waiting[this.#head];
      this.#waiting[this.#head++] = undefined as unknown as Entry<T>;
      if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
        this.#waiting.splice(0, this.#head);
        this.#head = 0;
      }
      this.#running.add(entry);
      this.#start(entry);
    }
    if (this.#running.size === 0 && this.waiting === 0) this.#idle?.();
  }

  async #start(entry: Entry<T>): Promise<void> {
    try {
      await this.#opts.run(entry.job, this.#abort.signal);
      if (this.#closed) this.#finished++;
    } catch (error) {
      try {
        this.#opts.onError(entry.job, error);
      } catch { /* a throwing reporter must not stop the queue */ }
    } finally {
      this.#running.delete(entry);
      this.#bytes -= entry.bytes;
      if (!this.#abort.signal.aborted) this.#pump();
      else if (this.#running.size === 0) this.#idle?.();
    }
  }

  /**
   * Stops taking jobs, lets waiting and running ones finish for up to `timeoutMs`, then aborts
   * the running ones and hands back every job that did not finish.
   */
  async close(opts: { timeoutMs: number }): Promise<CloseResult<T>> {
    this.#closed = true;
    const idle = new Promise<void>((resolve) => (this.#idle = resolve));
    if (this.#running.size === 0 && this.waiting === 0) this.#idle?.();
    if (await settlesWithin(idle, opts.timeoutMs)) {
      return { finished: this.#finished, handedBack: [] };
    }
    const handedBack = [
      ...[...this.#running].map((e) => e.job),
      ...this.#waiting.slice(this.#head).map((e) => e.job),
    ];
    this.#waiting.length = 0;
    this.#head = 0;
    this.#abort.abort(new DOMException("the receiver is stopping", "AbortError"));
    return { finished: this.#finished, handedBack };
  }
}
