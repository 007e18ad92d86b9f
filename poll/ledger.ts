/**
 * The poll ledger (`polling.stateFile`): per work item, what the poller has seen, attempted and
 * has in flight, so a restart neither loses a comment nor hands one over twice (except the one
 * delivery that was in flight when the previous process died). Written atomically, and only
 * when something changed: an idle cycle writes nothing.
 *
 * ```json
 * { "version": 1, "items": { "github:o/r#7": { "seenComments": ["IC_…"], "commentAttempts": {},
 *   "inFlight": [], "spawn": { "pending": false, "attempts": 0 }, "lastPolledAt": "…",
 *   "updatedAt": "…", "commentCount": 3, "since": { "comments": "…" } } } }
 * ```
 *
 * @module
 */
import { writeFileAtomic } from "../state/atomic.ts";
import { messageOf } from "../errors.ts";
import type { IssueRef } from "../github/mod.ts";

/** The ledger's format version. */
export const LEDGER_VERSION = 1;

/** Presence (spawn) bookkeeping of one item. */
export interface SpawnRecord {
  /** A presence event is owed (first sight, a new comment, a new start). */
  pending: boolean;
  /** Failed presence attempts since it was last armed. */
  attempts: number;
  /** `requestedAt` of the start record last acted on (a newer start re-arms). */
  startAt?: string;
}

/** One item's record. */
export interface ItemRecord {
  kind: "issue" | "pull";
  /** Node ids handled for good (delivered, settled, dropped, baselined or given up on). */
  seenComments: string[];
  /** Failed attempts of comments still to be retried. */
  commentAttempts: Record<string, number>;
  /** Comments handed to the router whose outcome was not recorded yet. */
  inFlight: string[];
  spawn: SpawnRecord;
  /** Comments given up on, and by which version of the-loop. */
  gaveUp?: { comments: string[]; version: string };
  /** When this item was last processed (ISO). */
  lastPolledAt: string;
  /** The item's `updated_at` and comment count when its thread was last read. */
  updatedAt: string;
  commentCount: number;
  /** When its thread was last read (local clock, ISO). */
  fetchedAt?: string;
  /** Watermarks (`updated_at` of the newest handled comment) per stream, for `since=`. */
  since: { comments?: string; reviewComments?: string };
  /** Read the whole thread next time (comments were re-armed). */
  refetch?: boolean;
  /** Pull requests: head branch and the issues GitHub says it closes. */
  pull?: { head: string; closing: IssueRef[] };
  /** The item fell out of the listing while it had a session, and is still open. */
  absent?: boolean;
  /** First sight is under way (the thread is being baselined); whether keywords apply. */
  baselining?: { applyControl: boolean };
  /** The unauthorized-author warning was given. */
  warnedAuthor?: boolean;
}

/** The whole file. */
export interface LedgerData {
  version: typeof LEDGER_VERSION;
  items: Record<string, ItemRecord>;
  /** Web hosts seen per repository (to tell which sessions a source covers). */
  hosts?: Record<string, string>;
  /** Items whose close the poller handed over (ref → closed | merged), until listed again. */
  closed?: Record<string, string>;
}

/** The ledger file is not one the poller can read. */
export class LedgerError extends Error {
  override name = "LedgerError";
}

/** A fresh item record. */
export function newRecord(kind: "issue" | "pull"): ItemRecord {
  return {
    kind,
    seenComments: [],
    commentAttempts: {},
    inFlight: [],
    spawn: { pending: false, attempts: 0 },
    lastPolledAt: "",
    updatedAt: "",
    commentCount: 0,
    since: {},
  };
}

/** The ledger of one poller, kept in memory and written through on {@linkcode Ledger.flush}. */
export class Ledger {
  readonly path: string;
  readonly #data: LedgerData;
  readonly #readOnly: boolean;
  #dirty = false;
  /** How many times the file was written (tests and the bench check idle cycles write nothing). */
  writes = 0;

  private constructor(path: string, data: LedgerData, readOnly: boolean) {
    this.path = path;
    this.#data = data;
    this.#readOnly = readOnly;
  }

  /**
   * Reads `path` (a missing file is an empty ledger). Throws {@linkcode LedgerError} when the
   * file is not a ledger: starting over would replay or lose comments, so a person decides.
   * `readOnly` (for `--dry-run`) never writes.
   */
  static async load(path: string, opts: { readOnly?: boolean } = {}): Promise<Ledger> {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return new Ledger(path, { version: LEDGER_VERSION, items: {} }, opts.readOnly ?? false);
      }
      throw new LedgerError(`cannot read the poll ledger ${path}: ${messageOf(error)}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new LedgerError(
        `the poll ledger ${path} is not valid JSON; move it aside to start over (every ` +
          `labelled item is then baselined again: comments posted meanwhile are not replayed)`,
      );
    }
    const d = data as Partial<LedgerData>;
    if (!d || d.version !== LEDGER_VERSION || typeof d.items !== "object" || d.items === null) {
      throw new LedgerError(
        `${path} is not a poll ledger of version ${LEDGER_VERSION}; move it aside to start over`,
      );
    }
    for (const rec of Object.values(d.items)) normalize(rec);
    return new Ledger(path, d as LedgerData, opts.readOnly ?? false);
  }

  /** The refs of every item recorded. */
  refs(): string[] {
    return Object.keys(this.#data.items);
  }

  get(ref: string): ItemRecord | undefined {
    return this.#data.items[ref];
  }

  /** Replaces (or adds) an item's record; written on the next flush. */
  set(ref: string, record: ItemRecord): void {
    this.#data.items[ref] = record;
    this.#dirty = true;
  }

  /** Forgets an item (its work item closed: a reopen is first sight again). */
  forget(ref: string): void {
    if (!(ref in this.#data.items)) return;
    delete this.#data.items[ref];
    this.#dirty = true;
  }

  /** The web host last seen for a repository. */
  host(repo: string): string | undefined {
    return this.#data.hosts?.[repo];
  }

  setHost(repo: string, host: string): void {
    if (this.#data.hosts?.[repo] === host) return;
    (this.#data.hosts ??= {})[repo] = host;
    this.#dirty = true;
  }

  /** How the poller last closed `ref`, if it did and the item was not listed since. */
  closedAs(ref: string): string | undefined {
    return this.#data.closed?.[ref];
  }

  /** Records a close handed over (and forgets the item's record). */
  markClosed(ref: string, state: string): void {
    this.forget(ref);
    (this.#data.closed ??= {})[ref] = state;
    this.#dirty = true;
  }

  /** The item is listed again: a later close is a new one. */
  clearClosed(ref: string): void {
    if (!this.#data.closed || !(ref in this.#data.closed)) return;
    delete this.#data.closed[ref];
    this.#dirty = true;
  }

  /** Marks the ledger changed (after editing a record in place). */
  touch(): void {
    this.#dirty = true;
  }

  /** Writes the file atomically when something changed since the last flush. */
  async flush(): Promise<void> {
    if (!this.#dirty || this.#readOnly) return;
    this.#dirty = false;
    await writeFileAtomic(this.path, JSON.stringify(this.#data) + "\n");
    this.writes++;
  }
}

function normalize(rec: ItemRecord): void {
  rec.seenComments ??= [];
  rec.commentAttempts ??= {};
  rec.inFlight ??= [];
  rec.spawn ??= { pending: false, attempts: 0 };
  rec.since ??= {};
  rec.kind ??= "issue";
}
