/**
 * An in-process lock per key: work under one key runs one call after the other, different keys
 * in parallel. Workspaces key it by repository (git's own lock files would make a concurrent
 * fetch fail, not wait); the session store by lock file (callers queue here before the OS lock,
 * so waiting never ties up a thread).
 *
 * @module
 */

/** Serializes async work per key. */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier `run` of `key` has settled. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => release = resolve);
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
