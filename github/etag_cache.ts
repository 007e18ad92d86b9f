/**
 * The conditional-request cache: for every GET URL, the validators GitHub gave (`ETag`,
 * `Last-Modified`), the body and the `Link` header of the last 200 answer. A 304 answer returns
 * the cached body. It survives restarts as one JSON file (written atomically, mode 0600: it holds
 * what the token could read), and is bounded in entries and bytes, least recently used first out.
 *
 * ```ts
 * const cache = await EtagCache.load(etagCachePath(config.state.root));
 * const gh = new GitHubClient({ apiUrl, token, cache });
 * // … a cycle …
 * await cache.flush(); // writes only when something changed
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { writeFileAtomic } from "../state/atomic.ts";

/** What is kept for one URL. */
export interface CacheEntry {
  etag?: string;
  lastModified?: string;
  /** The `Link` header of the cached answer (a 304 need not repeat it). */
  link?: string;
  /** The parsed JSON body. */
  body: unknown;
  /** The body's size in bytes, as JSON (what the bound counts). */
  size: number;
}

/** Options for {@linkcode EtagCache}. */
export interface EtagCacheOptions {
  /** Most entries kept; default 2,000. */
  maxEntries?: number;
  /** Most body bytes kept in all; default 32 MiB. */
  maxBytes?: number;
}

/** The file name under a state root. */
export const ETAG_CACHE_FILE = "github-etags.json";

/** `<stateRoot>/github-etags.json`. */
export function etagCachePath(stateRoot: string): string {
  return join(stateRoot, ETAG_CACHE_FILE);
}

const FORMAT = 1;

/** An LRU of GET answers, optionally backed by a file. */
export class EtagCache {
  readonly path: string | undefined;
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly #entries = new Map<string, CacheEntry>();
  #bytes = 0;
  #dirty = false;

  constructor(path?: string, opts: EtagCacheOptions = {}) {
    this.path = path;
    this.maxEntries = Math.max(1, opts.maxEntries ?? 2_000);
    this.maxBytes = Math.max(1, opts.maxBytes ?? 32 * 1024 * 1024);
  }

  /**
   * The cache stored at `path`; empty when the file is missing, unreadable or not ours (a
   * broken cache only costs full answers, so it is never an error).
   */
  static async load(path: string, opts: EtagCacheOptions = {}): Promise<EtagCache> {
    const cache = new EtagCache(path, opts);
    let data: unknown;
    try {
      data = JSON.parse(await Deno.readTextFile(path));
    } catch {
      return cache;
    }
    const d = data as { format?: unknown; entries?: unknown };
    if (d?.format !== FORMAT || !Array.isArray(d.entries)) return cache;
    for (const item of d.entries) {
      if (!Array.isArray(item) || typeof item[0] !== "string") continue;
      const e = item[1] as Partial<CacheEntry> | null;
      if (!e || typeof e !== "object" || !("body" in e)) continue;
      if (typeof e.etag !== "string" && typeof e.lastModified !== "string") continue;
      cache.#put(item[0], {
        etag: typeof e.etag === "string" ? e.etag : undefined,
        lastModified: typeof e.lastModified === "string" ? e.lastModified : undefined,
        link: typeof e.link === "string" ? e.link : undefined,
        body: e.body,
        size: typeof e.size === "number" ? e.size : JSON.stringify(e.body).length,
      });
    }
    cache.#dirty = false;
    return cache;
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Body bytes kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry for `key`, marked as recently used. */
  get(key: string): CacheEntry | undefined {
    const e = this.#entries.get(key);
    if (e) {
      this.#entries.delete(key);
      this.#entries.set(key, e);
    }
    return e;
  }

  /** Keeps `entry` under `key` (an answer without validators is not kept). */
  set(key: string, entry: Omit<CacheEntry, "size"> & { size?: number }): void {
    if (!entry.etag && !entry.lastModified) return this.delete(key);
    const size = entry.size ?? JSON.stringify(entry.body ?? null).length;
    this.#put(key, { ...entry, size });
    this.#dirty = true;
  }

  /** Forgets `key`. */
  delete(key: string): void {
    const old = this.#entries.get(key);
    if (!old) return;
    this.#bytes -= old.size;
    this.#entries.delete(key);
    this.#dirty = true;
  }

  #put(key: string, entry: CacheEntry): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.size;
      this.#entries.delete(key);
    }
    if (entry.size > this.maxBytes) return; // larger than the whole cache: not kept
    this.#entries.set(key, entry);
    this.#bytes += entry.size;
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#bytes <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= e.size;
    }
  }

  /** Writes the file (atomically) when something changed since the last load or flush. */
  async flush(): Promise<void> {
    if (!this.path || !this.#dirty) return;
    const entries = [...this.#entries];
    this.#dirty = false;
    try {
      await writeFileAtomic(this.path, JSON.stringify({ format: FORMAT, entries }), {
        mode: 0o600,
      });
    } catch (err) {
      this.#dirty = true;
      throw err;
    }
  }
}
