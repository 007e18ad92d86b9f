/**
 * A fair pool of slots: at most `limit()` holders at once (read each time a slot is taken or
 * given back, so a hot reload applies), the others served strictly in the order they asked. A
 * slot given back goes to the oldest waiter, never to whoever happens to ask again first.
 *
 * @module
 */

/** A first-come, first-served counting semaphore. */
export class Slots {
  readonly #limit: () => number;
  readonly #waiters: (() => void)[] = [];
  #held = 0;

  constructor(limit: () => number) {
    this.#limit = limit;
  }

  /** Resolves with the release of a slot once one is free and every earlier asker was served. */
  take(): Promise<() => void> {
    return new Promise((resolve) => {
      this.#waiters.push(() => {
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.#held--;
          this.#pump();
        });
      });
      this.#pump();
    });
  }

  /** Runs `fn` holding a slot; the slot is given back when it settles. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.take();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Slots held now. */
  get held(): number {
    return this.#held;
  }

  #pump(): void {
    while (this.#waiters.length > 0 && this.#held < Math.max(1, this.#limit())) {
      this.#held++;
      this.#waiters.shift()!();
    }
  }
}
