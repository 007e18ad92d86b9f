/**
 * A keyed queue (the dispatcher's, keyed by a work item's ref): one FIFO per key, one job of a key
 * at a time in arrival order, and at most `limit()` jobs running across keys. A key whose queue is
 * long holds back only itself: the next job to start is always the oldest one whose key is idle.
 *
 * @module
 */

interface Job {
  seq: number;
  key: string;
  start: () => void;
  /** Queued with `first`: ahead of the key's waiting jobs. */
  first?: boolean;
}

/** Runs jobs one at a time per key, in parallel across keys up to a limit. */
export class KeyedQueue {
  readonly #limit: () => number;
  /** Each busy key's jobs, the running (or ready) one first. */
  readonly #keys = new Map<string, Job[]>();
  /** Jobs at the head of their key, waiting for a slot, oldest first. */
  #ready: Job[] = [];
  #running = 0;
  #seq = 0;

  /** `limit` is read each time a slot frees (at least 1). */
  constructor(limit: () => number) {
    this.#limit = limit;
  }

  /** How many jobs run now, and how many wait. */
  get size(): { running: number; waiting: number } {
    let queued = 0;
    for (const jobs of this.#keys.values()) queued += jobs.length;
    return { running: this.#running, waiting: queued - this.#running };
  }

  /**
   * Runs `fn` when its turn comes; resolves or rejects as `fn` does. `first`: it goes ahead of
   * the key's jobs that wait (after the running one and the ones queued `first` before it) —
   * a resumed item's held events go before what arrived while they were held.
   */
  run<T>(key: string, fn: () => Promise<T>, opts: { first?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        seq: this.#seq++,
        key,
        ...(opts.first ? { first: true } : {}),
        start: () => {
          this.#running++;
          let done: Promise<T>;
          try {
            done = fn();
          } catch (err) {
            done = Promise.reject(err);
          }
          done.then(resolve, reject).finally(() => this.#finish(job));
        },
      };
      const jobs = this.#keys.get(key);
      if (jobs && opts.first) {
        let at = 1; // after the running (or ready) head
        while (at < jobs.length && jobs[at].first) at++;
        jobs.splice(at, 0, job);
      } else if (jobs) {
        jobs.push(job);
      } else {
        this.#keys.set(key, [job]);
        this.#ready.push(job);
      }
      this.#pump();
    });
  }

  #finish(job: Job): void {
    this.#running--;
    const jobs = this.#keys.get(job.key)!;
    jobs.shift();
    if (jobs.length === 0) {
      this.#keys.delete(job.key);
    } else {
      // the key's next job joins the ready list in arrival order
      const next = jobs[0];
      const at = this.#ready.findIndex((j) => j.seq > next.seq);
      if (at < 0) this.#ready.push(next);
      else this.#ready.splice(at, 0, next);
    }
    this.#pump();
  }

  #pump(): void {
    while (this.#ready.length > 0 && this.#running < Math.max(1, this.#limit())) {
      this.#ready.shift()!.start();
    }
  }
}
