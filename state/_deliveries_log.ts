/**
 * A session's deliveries log: `<slug>.deliveries.jsonl` beside its record, one line per batch of
 * deliveries noted on the session (`{"at": ISO time, "ids": [delivery ids]}`). Noting a delivery
 * is then one appended line, where rewriting the record (a temp file renamed over it) costs the
 * daemon's thread a few hundred microseconds of file-system work each time, most of it the
 * rename — a burst notes a batch every few milliseconds.
 *
 * The record stays the whole truth once the log is folded into it: every write of the record
 * (any change to the session, or the log growing past {@linkcode NOTES_MAX_BYTES}) carries the
 * record as read with its log applied and a new `rev`, then empties the log. Each line names the
 * `rev` of the record it was noted against, and only the lines of the record's own `rev` apply to
 * it. A reader reads the log **before** the record, so a fold between its two reads never hides a
 * note: it then reads the folded record (which holds them) and the lines it read name the old
 * `rev`. The lines a crash left between a write and the emptying of the log, or of a session
 * registered anew over the old one, name an old `rev` too. A line cut short (a write under way,
 * a crash half-way) is skipped.
 *
 * A line with `"flying": true` marks its ids **in flight**: written before their paste, so a
 * crash between the paste and the note leaves them marked (`inFlight` of the record). The note
 * after the paste (a line without `flying`) settles them: they leave `inFlight` and join
 * `recentDeliveries`. A redelivery of a settled id is a duplicate; one of an id in flight is
 * delivered again, flagged as a possible repeat.
 *
 * @module
 */
import { countDelivery, countRun, type RunUse, type SessionUsage } from "./usage.ts";

/** One line of the log. */
export interface DeliveryNote {
  /** When the deliveries were noted (the record's `lastEventAt` after them). */
  at: string;
  /** Their delivery ids, in delivery order. */
  ids: string[];
  /** The `rev` of the record they were noted against (absent: a record without one). */
  rev?: string;
  /** Marked in flight (before their paste), not yet delivered. */
  flying?: true;
  /**
   * With `flying`: ids delivered before it whose own note is not written yet (it follows), taken
   * as delivered first. So at most one batch per session is ever in flight unnoted.
   */
  landed?: string[];
  /**
   * The authors of the comments and reviews among the delivered ids (one entry each): what the
   * loop guard counts (`usage.ts`).
   */
  by?: string[];
  /** What the run that delivered them reported it used. */
  use?: RunUse;
}

/** How many ids in flight a record remembers (newest last). */
const IN_FLIGHT_KEEP = 50;

/** Past this size the log is folded into the record at the next note. */
export const NOTES_MAX_BYTES = 2 * 1024;

const encoder = new TextEncoder();
const NEWLINE = 0x0a;

function isNote(v: unknown): v is DeliveryNote {
  const n = v as DeliveryNote;
  return typeof v === "object" && v !== null && typeof n.at === "string" &&
    Array.isArray(n.ids) && n.ids.every((id) => typeof id === "string") &&
    (n.rev === undefined || typeof n.rev === "string") &&
    (n.flying === undefined || n.flying === true) &&
    (n.landed === undefined ||
      (Array.isArray(n.landed) && n.landed.every((id) => typeof id === "string"))) &&
    (n.by === undefined || (Array.isArray(n.by) && n.by.every((a) => typeof a === "string"))) &&
    (n.use === undefined || (typeof n.use === "object" && n.use !== null));
}

/** The log beside the record file `recordPath` (`x.json` → `x.deliveries.jsonl`). */
export function notesPathOf(recordPath: string): string {
  return recordPath.replace(/\.json$/, "") + ".deliveries.jsonl";
}

/** The notes of the log at `path`, in order (none when it does not exist). */
export function readNotes(path: string): DeliveryNote[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const notes: DeliveryNote[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const note = JSON.parse(line);
      if (isNote(note)) notes.push(note);
    } catch { /* a line still being written, or cut short by a crash */ }
  }
  return notes;
}

/**
 * `recent`, `inFlight` and `lastEventAt` with the notes of the record's `rev` applied in order:
 * a delivered note's ids join the end of `recent` (a repeat moves there; the last `keep` stay)
 * and leave `inFlight`, and `lastEventAt` is its time; a flying note's ids join `inFlight` (the
 * last `IN_FLIGHT_KEEP`, 50, stay).
 */
export function applyNotes(
  state: {
    recentDeliveries: string[];
    lastEventAt: string | null;
    rev?: string;
    inFlight?: string[];
    usage?: SessionUsage;
  },
  notes: readonly DeliveryNote[],
  keep: number,
): {
  recentDeliveries: string[];
  lastEventAt: string | null;
  inFlight?: string[];
  usage?: SessionUsage;
} {
  let recent = state.recentDeliveries;
  let usage = state.usage;
  let lastEventAt = state.lastEventAt;
  let flying = state.inFlight ?? [];
  for (const note of notes) {
    if (note.rev !== state.rev) continue; // noted against an earlier version of the record
    const delivered = note.flying ? note.landed ?? [] : note.ids;
    if (usage) {
      // each delivery counted once: when it lands (a flying note's `landed`, or its own note)
      const counted = new Set(recent);
      const fresh = delivered.filter((d) => !counted.has(d));
      const at = new Date(note.at);
      if (fresh.length > 0) usage = countDelivery(usage, { at, n: fresh.length, authors: note.by });
      if (note.use) usage = countRun(usage, note.use);
    }
    if (delivered.length > 0) {
      flying = flying.filter((d) => !delivered.includes(d));
      recent = recent.filter((d) => !delivered.includes(d));
      recent.push(...delivered);
      lastEventAt = note.at;
    }
    if (note.flying) {
      flying = flying.filter((d) => !note.ids.includes(d));
      flying.push(...note.ids);
    }
  }
  const inFlight = flying.slice(-IN_FLIGHT_KEEP);
  return {
    recentDeliveries: recent.slice(-keep),
    lastEventAt,
    ...(inFlight.length > 0 || state.inFlight ? { inFlight } : {}),
    ...(usage ? { usage } : {}),
  };
}

/**
 * Appends `note` as one line with one `write` (O_APPEND: it lands whole, after every other);
 * returns the log's `stat` after it. A line a crash cut short is ended first, so it takes no good
 * note down with it.
 */
export function appendNote(path: string, note: DeliveryNote): Deno.FileInfo {
  using file = Deno.openSync(path, { read: true, append: true, create: true });
  const last = new Uint8Array(1);
  const torn = file.statSync().size > 0 && file.seekSync(-1, Deno.SeekMode.End) >= 0 &&
    file.readSync(last) === 1 && last[0] !== NEWLINE;
  const line = encoder.encode((torn ? "\n" : "") + JSON.stringify(note) + "\n");
  let rest = line;
  while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
  return file.statSync();
}

/** Empties the log (after its notes went into the record); nothing when there is none. */
export function clearNotes(path: string): void {
  try {
    Deno.truncateSync(path, 0);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
