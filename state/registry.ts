/**
 * The session registry: one human-readable JSON file per session in `routing.registryDir`
 * (`<slug>.json`, e.g. `github-octo-repo-15.json`). The dispatcher owns writing it;
 * ingress only reads it, through {@linkcode SessionLookup}, so there is one registry, not two.
 * Only files named like a session's slug (`github-….json`) are looked at, so other files in the
 * folder (the poll ledger `poll-state.json` sits there by default) are none of its business; a
 * slug-named file the registry did not write, or cannot parse, is skipped with a warning and
 * never fatal. Deliveries noted on a session go to its deliveries log beside the file
 * (`<slug>.deliveries.jsonl`, `_deliveries_log.ts`) and into the file at its next write; what
 * the registry reads is always the two together.
 *
 * @module
 */
import { join } from "node:path";
import { messageOf } from "../errors.ts";
import { writeFileAtomic } from "./atomic.ts";
import {
  appendNote,
  applyNotes,
  clearNotes,
  type DeliveryNote,
  NOTES_MAX_BYTES,
  notesPathOf,
  readNotes,
} from "./_deliveries_log.ts";
import { identityOf, RecordCache } from "./_record_cache.ts";
import { DirListing } from "./stat_gate.ts";
import type { SessionUsage } from "./usage.ts";
import { parseWorkItem, slugOf, type WorkItemRef } from "./work_item.ts";

/** How many delivery ids a record remembers (newest last). */
export const RECENT_DELIVERIES = 50;

/** A session's status: `active` and `paused` are live (they own their work item). */
export type SessionStatus = "active" | "paused" | "closed";

/** One registry file. */
export interface SessionRecord {
  workItem: {
    ref: string;
    provider: "github";
    host?: string;
    owner: string;
    repo: string;
    number: number;
  };
  harness: string;
  harnessSessionId: string;
  cwd: string;
  status: SessionStatus;
  createdAt: string;
  lastEventAt: string | null;
  tmuxTarget: string;
  recentDeliveries: string[];
  /**
   * Delivery ids marked in flight (before their paste) and not yet noted delivered: what a crash
   * may have pasted without its note. Absent: none.
   */
  inFlight?: string[];
  url: string;
  /**
   * The agent's open question (`the-loop ask`): what it asked and since when. Absent: the
   * session awaits no input. The next authorized comment (or `the-loop reply`) answers it.
   */
  awaitingInput?: AwaitingInput;
  /**
   * What the session has used, against `routing.budgets` and the loop guard (`usage.ts`);
   * absent on a record written before budgets existed (then nothing is counted for it).
   */
  usage?: SessionUsage;
  /**
   * The CI checks (by name; a commit status by its context) that failed on this session and have
   * not passed since: the next success of one of them is a recovery (`routing.deliver.ci`).
   * Absent: none.
   */
  ciFailing?: string[];
  /**
   * Changes at every write of the file (a random word); the lines of the deliveries log name the
   * one they were noted against. Absent in files from before the log, until their next write.
   */
  rev?: string;
}

/** An open question of the agent's. */
export interface AwaitingInput {
  /** The question as posted (after the `waiting_for_input` hooks). */
  question: string;
  /** The one-line summary; `""` when none. */
  summary: string;
  /** When it was asked (ISO 8601). */
  since: string;
  /** The question comment's URL; `""` when it could not be posted. */
  commentUrl: string;
}

/** What ingress asks of the registry. */
export interface SessionLookup {
  /** The live (active or paused) session of `ref`, if any. */
  live(ref: string): Promise<SessionRecord | undefined>;
  /** Every live session. */
  listLive(): Promise<SessionRecord[]>;
}

/** The names of session files: `github-<slug>.json`. */
const SESSION_FILE = /^github-.+\.json$/;

function isRecord(value: unknown): value is SessionRecord {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const item = v.workItem as Record<string, unknown> | undefined;
  return typeof item === "object" && item !== null && typeof item.ref === "string" &&
    parseWorkItem(item.ref) !== undefined && typeof v.harness === "string" &&
    (v.status === "active" || v.status === "paused" || v.status === "closed");
}

/**
 * The registry directory, read from disk on every question (the dispatcher may be another
 * process). Asking about an item with no session file is the common case under load (every
 * webhook for an item nobody works on), so the folder's listing is kept and re-read only when
 * the folder's `stat` says it may have changed (every write is a rename into it); a file that is
 * listed is read afresh each time.
 */
export class RegistryDir implements SessionLookup {
  readonly dir: string;
  readonly #warn: (message: string) => void;
  readonly #warned = new Set<string>();
  readonly #listing: DirListing;
  readonly #kept = new RecordCache<SessionRecord>(copyRecord);

  constructor(dir: string, opts: { warn?: (message: string) => void } = {}) {
    this.dir = dir;
    this.#warn = opts.warn ?? (() => {});
    this.#listing = new DirListing(dir);
  }

  /** The file a ref's session lives in. */
  pathOf(item: WorkItemRef): string {
    return join(this.dir, `${slugOf(item)}.json`);
  }

  async live(ref: string): Promise<SessionRecord | undefined> {
    const record = await this.get(ref);
    return record?.status !== "closed" ? record : undefined;
  }

  async listLive(): Promise<SessionRecord[]> {
    return (await this.listAll()).filter((r) => r.status !== "closed");
  }

  /**
   * The record of `ref` whatever its status (closed too), read from its file afresh (for
   * read-modify-write under a lock); `undefined` when there is none or it is unreadable. Whether
   * the file exists is taken from the folder's listing, re-read whenever the folder may have
   * changed (a write is a rename into it) and the file was not listed before.
   */
  async get(ref: string): Promise<SessionRecord | undefined> {
    const item = parseWorkItem(ref);
    if (!item) return undefined;
    // a file that is not in the (fresh enough) listing is not there: no read, no NotFound; one
    // listed before is read directly (a read that finds nothing answers "none")
    if (!this.#listing.mayHave(`${slugOf(item)}.json`)) return undefined;
    const record = await this.#read(this.pathOf(item));
    return record && record.workItem.ref === item.ref ? record : undefined;
  }

  /** Every record the registry can read, closed ones included, in file-name order. */
  async listAll(): Promise<SessionRecord[]> {
    const out: SessionRecord[] = [];
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(this.dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isFile || !SESSION_FILE.test(entry.name)) continue;
      const record = await this.#read(join(this.dir, entry.name));
      if (record) out.push(record);
    }
    return out;
  }

  /**
   * Writes a record atomically (for the dispatcher and for tests); `durable: false` does not
   * wait for the disk (see `writeFileAtomic`).
   */
  async write(record: SessionRecord, opts: { durable?: boolean } = {}): Promise<void> {
    const path = this.#fileOf(record);
    const written = { ...record, rev: crypto.randomUUID().slice(0, 8) };
    await writeFileAtomic(path, JSON.stringify(written, null, 2) + "\n", opts);
    // the record now holds what the log said (it was read with it); lines a crash leaves here
    // name the old rev and are not applied again
    clearNotes(notesPathOf(path));
  }

  /**
   * Notes deliveries on `record` (as read, under the item's lock): one line appended to its
   * deliveries log, or, once the log has grown past {@linkcode NOTES_MAX_BYTES}, the record
   * written with the log folded in. Returns the record with the note applied.
   */
  async note(record: SessionRecord, note: DeliveryNote): Promise<SessionRecord> {
    const line = record.rev === undefined ? note : { ...note, rev: record.rev };
    const next = { ...record, ...applyNotes(record, [line], RECENT_DELIVERIES) };
    const path = this.#fileOf(record);
    const logPath = notesPathOf(path);
    const log = appendNote(logPath, line);
    if (log.size > NOTES_MAX_BYTES) {
      await this.write(next, { durable: false });
    } else {
      // under the item's lock, the files now hold `record` and this line: what a read would give
      this.#kept.set(path, identityOf(path, logPath, log), next);
    }
    return next;
  }

  /** The file of `record`'s work item. */
  #fileOf(record: SessionRecord): string {
    const item = parseWorkItem(record.workItem.ref);
    if (!item) throw new RangeError(`"${record.workItem.ref}" is not a work item ref`);
    return this.pathOf(item);
  }

  // Reads are synchronous: a session file is a few hundred bytes on local disk, and a sync read
  // costs microseconds where an async one waits its turn in the thread pool; the dispatcher asks
  // the registry several times per event, one event after another per work item.
  // deno-lint-ignore require-await
  async #read(path: string): Promise<SessionRecord | undefined> {
    // the files' stat before their contents: what is kept is never older than that look
    const logPath = notesPathOf(path);
    const id = identityOf(path, logPath);
    const kept = this.#kept.get(path, id);
    if (kept) return kept;
    // the log before the record (see `_deliveries_log.ts`)
    let notes: DeliveryNote[] | undefined;
    try {
      notes = readNotes(logPath);
    } catch (error) {
      this.#once(`${path} log`, `ignoring the deliveries log of ${path}: ${messageOf(error)}`);
    }
    const record = this.#readRecord(path, notes ?? []);
    // a log that could not be read is not kept unread: the next question tries it again
    if (record && notes) this.#kept.set(path, id, record);
    else this.#kept.delete(path);
    return record;
  }

  /** The record at `path` with `notes` applied; `undefined` when missing or not one. */
  #readRecord(path: string, notes: DeliveryNote[]): SessionRecord | undefined {
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      this.#once(path, `skipping session file ${path}: ${(error as Error).message}`);
      return undefined;
    }
    try {
      const value = JSON.parse(text);
      if (isRecord(value)) {
        return notes.length === 0
          ? value
          : { ...value, ...applyNotes(value, notes, RECENT_DELIVERIES) };
      }
      this.#once(path, `skipping ${path}: not a session record the-loop wrote`);
    } catch {
      this.#once(path, `skipping ${path}: not valid JSON`);
    }
    return undefined;
  }

  #once(path: string, message: string): void {
    if (this.#warned.has(path)) return;
    this.#warned.add(path);
    this.#warn(message);
  }
}

/** A record of one's own: the parts a caller might change copied. */
function copyRecord(record: SessionRecord): SessionRecord {
  return {
    ...record,
    workItem: { ...record.workItem },
    recentDeliveries: [...record.recentDeliveries],
    ...(record.inFlight ? { inFlight: [...record.inFlight] } : {}),
    ...(record.ciFailing ? { ciFailing: [...record.ciFailing] } : {}),
  };
}
