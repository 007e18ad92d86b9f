/**
 * The watch-only dispatcher (`routing.dispatcher: journal`): instead of driving sessions, the
 * daemons hand every routed value to a {@linkcode JournalDispatcher}, which appends one JSON line
 * per value to a journal file and records control commands, so a start typed in a comment is
 * durable and the poller sees the item armed. Nothing is spawned or posted.
 *
 * The journal is a log, and logs are read, shipped and pasted into bug reports: it never holds a
 * comment's body (which may carry anything a stranger typed, or a secret pasted by mistake), only
 * its length and the command it carried.
 *
 * ```ts
 * const d = new JournalDispatcher({ path, control: new ControlStore(root), controlConfig: () => cfg });
 * await d.dispatch(event); // { status: "delivered" }
 * await readJournal(path); // [{ ts, delivery_id, work_item, kind, … }]
 * ```
 *
 * @module
 */
import { dirname } from "node:path";
import type { RoutingConfig } from "../config/mod.ts";
import type { ControlCommand, ControlStore } from "../state/control.ts";
import { parseControl } from "./keywords.ts";
import type { Dispatcher, DispatchOutcome, RoutedEvent, RoutedKind, Via } from "./types.ts";

/** One journal line. */
export interface JournalEntry {
  /** UTC ISO-8601 time the value was dispatched. */
  ts: string;
  delivery_id: string;
  work_item: string;
  kind: RoutedKind;
  gh_event: string;
  action: string;
  actor: string | null;
  via: Via;
  labeled: boolean;
  /** The subject's `html_url` (the comment, review or item), or `null`. */
  subject_url: string | null;
  /** How long the comment's or review's text was (the text itself is never written). */
  text_chars: number;
  /** The one control command the text carried, else `null`. */
  command: ControlCommand | null;
  /** Two or more different commands (none recorded); absent otherwise. */
  ambiguous?: ControlCommand[];
}

/** Options of {@linkcode JournalDispatcher}. */
export interface JournalDispatcherOptions {
  /** The journal file (JSON lines; its directory is created). */
  path: string;
  /** Where control commands are recorded. */
  control: ControlStore;
  /** The control settings in force (read on every dispatch, so a reload applies at once). */
  controlConfig: () => RoutingConfig["control"];
  /** The clock; tests pin it. */
  now?: () => Date;
}

const TEXT_KINDS: ReadonlySet<RoutedKind> = new Set(["comment", "review", "review_comment"]);

/** The journal line of `event` (with the command parsed from its text). */
export function journalEntry(
  event: RoutedEvent,
  control: RoutingConfig["control"],
  now: Date = new Date(),
): JournalEntry {
  const parsed = TEXT_KINDS.has(event.kind) ? parseControl(event.text, control) : {};
  const entry: JournalEntry = {
    ts: now.toISOString(),
    delivery_id: event.deliveryId,
    work_item: event.workItem.ref,
    kind: event.kind,
    gh_event: event.ghEvent,
    action: event.action,
    actor: event.actor,
    via: event.via,
    labeled: event.labeled,
    subject_url: event.subject?.url ?? null,
    text_chars: event.text.length,
    command: parsed.command ?? null,
  };
  if (parsed.ambiguous) entry.ambiguous = parsed.ambiguous;
  return entry;
}

/** The journal's file name under the state root (both daemons append to the same file). */
export const JOURNAL_FILE = "dispatch-journal.jsonl";

/** Appends one line per routed value; records control commands; always delivers. */
export class JournalDispatcher implements Dispatcher {
  readonly path: string;
  readonly #control: ControlStore;
  readonly #controlConfig: () => RoutingConfig["control"];
  readonly #now: () => Date;
  #dirReady = false;

  constructor(opts: JournalDispatcherOptions) {
    this.path = opts.path;
    this.#control = opts.control;
    this.#controlConfig = opts.controlConfig;
    this.#now = opts.now ?? (() => new Date());
  }

  async dispatch(event: RoutedEvent): Promise<DispatchOutcome> {
    const entry = journalEntry(event, this.#controlConfig(), this.#now());
    this.#append(JSON.stringify(entry) + "\n");
    // a deleted comment asks nothing; the router has already vouched for the actor
    if (entry.command && event.actor && event.action !== "deleted") {
      await this.#control.record({
        ref: event.workItem.ref,
        command: entry.command,
        source: "comment",
        actor: event.actor,
        requestedAt: entry.ts,
        note: event.subject?.url ?? "",
      });
    }
    return { status: "delivered" };
  }

  /**
   * One `write` on an O_APPEND descriptor, so concurrent writers never interleave a line. It is
   * synchronous, as the event log's: a few microseconds for a line, against tens for the
   * thread-pool round trips of the async calls, on the path every webhook takes.
   */
  #append(line: string): void {
    if (!this.#dirReady) {
      Deno.mkdirSync(dirname(this.path), { recursive: true });
      this.#dirReady = true;
    }
    const file = Deno.openSync(this.path, { append: true, create: true });
    try {
      const bytes = new TextEncoder().encode(line);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    } finally {
      file.close();
    }
  }
}

/** The entries of a journal, oldest first (`[]` when it does not exist; torn lines skipped). */
export async function readJournal(path: string): Promise<JournalEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const out: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a line cut short by a crash: skip it
    }
  }
  return out;
}
