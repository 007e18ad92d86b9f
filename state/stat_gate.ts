/**
 * A cheap gate in front of re-reading a file or a folder that rarely changes (the config file
 * before every webhook event, the session registry folder before every lookup): look at its
 * `stat` (one system call) and skip the read when nothing can have changed.
 *
 * File times are coarse (a few milliseconds on Linux), so an edit made in the same tick as the
 * last read, keeping the size, leaves the stat alone. Hence: while the mtime is within
 * {@linkcode RECENT_MS} of the last full read, every call says "read again"; only a file left
 * alone for longer is trusted to its stat. So a reader never acts on content older than its
 * question, as reading every time would give.
 *
 * @module
 */

/** How long after an edit every event still re-reads the file. */
export const RECENT_MS = 1_000;

/** Whether the file or folder at `path` may have changed since the last full read. */
export class StatGate {
  readonly #path: string | null;
  #key = "";
  #lastCheck = -Infinity;
  /** When the last `stat` was taken (`performance.now()`). */
  #statAt = -Infinity;

  constructor(path: string | null) {
    this.#path = path;
  }

  /**
   * True when a full check is needed now (and records that one is being made). `asOf`: the
   * caller's question is from that moment (`performance.now()`); a `stat` taken since answered
   * it already (and, had it found a change, a full check was made then), so none is taken.
   */
  due(opts: { asOf?: number } = {}): boolean {
    if (this.#path === null) return false;
    if (opts.asOf !== undefined && opts.asOf <= this.#statAt) return false;
    this.#statAt = performance.now();
    let key: string;
    let mtime: number;
    try {
      const s = Deno.statSync(this.#path);
      mtime = s.mtime?.getTime() ?? Date.now();
      key = `${s.ino}:${s.size}:${mtime}:${s.ctime?.getTime()}`;
    } catch {
      // a missing path stays "missing" until it appears (which changes the key)
      key = "missing";
      mtime = -Infinity;
    }
    const now = Date.now();
    if (key === this.#key && mtime < this.#lastCheck - RECENT_MS) return false;
    this.#key = key;
    this.#lastCheck = now;
    return true;
  }
}

/**
 * A folder's entry names, listed again only when its {@linkcode StatGate} says the folder may have
 * changed (every atomic write is a rename into it, which changes it). Lets "is there a file for
 * this?" — asked on every event, mostly about items that have none — end without a read.
 */
export class DirListing {
  readonly dir: string;
  readonly #gate: StatGate;
  #names = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
    this.#gate = new StatGate(dir);
  }

  /** Whether the folder holds an entry named `name` (a missing folder holds none). */
  has(name: string): boolean {
    if (this.#gate.due()) {
      const names = new Set<string>();
      try {
        for (const entry of Deno.readDirSync(this.dir)) names.add(entry.name);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      this.#names = names;
    }
    return this.#names.has(name);
  }

  /**
   * Like {@linkcode has}, but a name the last listing held is taken as there without looking
   * again: for a caller that reads the entry next and takes "not found" as "none". A folder
   * written on every event (a session's record at each delivery) is then not listed again at
   * each question about an entry it already had; a name it lacked is still checked afresh.
   */
  mayHave(name: string): boolean {
    return this.#names.has(name) || this.has(name);
  }
}
