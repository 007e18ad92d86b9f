/**
 * At-most-once per delivery: a bounded LRU of the delivery ids the router has taken. GitHub
 * redelivers on its own schedule (and operators press "Redeliver"), so a delivery id seen twice is
 * dropped — unless the first attempt failed in a way worth retrying, when the router
 * {@linkcode DedupCache.release}s the id again.
 *
 * ```ts
 * const seen = new DedupCache(2);
 * seen.remember("a"); // true: new
 * seen.remember("a"); // false: a duplicate
 * seen.release("a");
 * seen.remember("a"); // true again
 * ```
 *
 * An id is kept as itself up to {@linkcode MAX_KEPT_ID_LENGTH} characters (GitHub's are 36-character
 * UUIDs) and as its SHA-256 beyond, so the cache's memory is bounded by its size whatever the
 * `X-GitHub-Delivery` headers hold.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** The default bound (`routing.dedupCacheSize`). */
export const DEFAULT_DEDUP_CACHE_SIZE = 1024;

/** The longest id kept as itself; a longer one is kept as its SHA-256. */
export const MAX_KEPT_ID_LENGTH = 64;

/** What the cache keeps of `id`: at most about 64 characters. */
function keyOf(id: string): string {
  if (id.length <= MAX_KEPT_ID_LENGTH) return id;
  return `sha256:${createHash("sha256").update(id).digest("base64")}`;
}

/** A bounded LRU set of delivery ids. */
export class DedupCache {
  /** At most this many ids are kept; the least recently seen goes first. */
  readonly size: number;
  // a Map iterates in insertion order: re-inserting an id makes it the most recent
  readonly #ids = new Map<string, true>();

  constructor(size: number = DEFAULT_DEDUP_CACHE_SIZE) {
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new RangeError(`the dedup cache size must be an integer ≥ 1 (got ${size})`);
    }
    this.size = size;
  }

  /** How many ids are held. */
  get length(): number {
    return this.#ids.size;
  }

  /** Whether `id` is held (does not touch its recency). */
  has(id: string): boolean {
    return this.#ids.has(keyOf(id));
  }

  /**
   * Takes `id`: `true` when it is new (and is now remembered), `false` when it was already held (a
   * duplicate; it becomes the most recent).
   */
  remember(id: string): boolean {
    id = keyOf(id);
    const known = this.#ids.delete(id);
    this.#ids.set(id, true);
    if (!known && this.#ids.size > this.size) {
      this.#ids.delete(this.#ids.keys().next().value!);
    }
    return !known;
  }

  /** Forgets `id`, so its next delivery is routed again. */
  release(id: string): void {
    this.#ids.delete(keyOf(id));
  }
}
