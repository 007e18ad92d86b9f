/**
 * Where each work item stands in its loop, on disk: `<state.root>/loops/<slug>.json`, one
 * {@linkcode Position} per item (the slug is `slugOf` of `state/work_item.ts`). Written by the
 * daemon's loop runtime before any side effect of a move; read by it and by
 * `the-loop loops show`.
 *
 * A write is atomic (`writeFileAtomic`: a reader sees the old position or the new one, never a
 * torn one). A file that does not parse, or is not a position of that item, is never deleted: it
 * is renamed aside to `<slug>.json.corrupt-<YYYYMMDDTHHMMSSZ>`, `onCorrupt` is told (the daemon
 * makes it an event), and the item reads as never having entered a loop.
 *
 * @module
 */
import { join } from "node:path";
import { writeFileAtomic } from "../state/atomic.ts";
import { parseWorkItem, slugOf } from "../state/work_item.ts";
import type { LoopPositions, Position, Transition } from "./types.ts";

/** The positions' folder of a state root: `<state.root>/loops`. */
export function positionsDir(stateRoot: string): string {
  return join(stateRoot, "loops");
}

/** What {@linkcode LoopStoreOptions.onCorrupt} is told. */
export interface CorruptPosition {
  ref: string;
  /** The position file that did not read. */
  path: string;
  /** Where it was kept. */
  keptAs: string;
  /** Why it did not read. */
  error: string;
}

/** Options for {@linkcode LoopStore}. */
export interface LoopStoreOptions {
  /** The positions' folder: `<state.root>/loops`. */
  dir: string;
  /** Told when a position file is corrupt (after it was renamed aside). */
  onCorrupt?: (o: CorruptPosition) => void;
  /** Flush each write to disk before answering (default true; see `writeFileAtomic`). */
  durable?: boolean;
  /** The clock the kept-aside name is stamped with (default: the system's). */
  now?: () => Date;
}

const STATUSES = ["active", "escalated", "completed"];
const KINDS = ["enter", "agent", "gate", "close", "escalate", "resume"];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function isTransition(v: unknown): v is Transition {
  return isObject(v) && typeof v.at === "string" && KINDS.includes(v.kind as string) &&
    typeof v.from === "string" && typeof v.to === "string" && typeof v.outcome === "string" &&
    typeof v.by === "string";
}

/** Why `v` is not the position of `ref`; undefined when it is one. */
function flaw(v: unknown, ref: string): string | undefined {
  if (!isObject(v)) return "not a JSON object";
  if (v.version !== 1) return `version ${JSON.stringify(v.version)} is not 1`;
  if (v.workItem !== ref) return `it is the position of ${JSON.stringify(v.workItem)}, not ${ref}`;
  const strings = ["loop", "node", "phase", "updatedAt"].filter((k) => typeof v[k] !== "string");
  if (strings.length > 0) return `${strings.join(", ")} must be strings`;
  if (!STATUSES.includes(v.status as string)) {
    return `status ${JSON.stringify(v.status)} is unknown`;
  }
  if (
    !isObject(v.attempts) ||
    !Object.values(v.attempts).every((n) => Number.isInteger(n) && (n as number) >= 0)
  ) return "attempts must map nodes to counts";
  if (v.waitingSince !== null && typeof v.waitingSince !== "string") {
    return "waitingSince must be a time or null";
  }
  if (!Array.isArray(v.history) || !v.history.every(isTransition)) {
    return "history must be a list of transitions";
  }
  return undefined;
}

/**
 * Reads a position file's text: the position of `ref`, or why it is none (not JSON, not a
 * position, another item's). `the-loop loops show` reads with it and moves nothing.
 */
export function readPosition(
  text: string,
  ref: string,
): { position: Position } | { error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { error: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  const error = flaw(data, ref);
  return error === undefined ? { position: data as Position } : { error };
}

/** How many positions {@linkcode LoopStore} keeps in memory before it starts over. */
const KNOWN_MAX = 4096;

/** `20260102T030405Z`. */
function stamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
}

/** The positions of every work item in `<state.root>/loops`. */
export class LoopStore implements LoopPositions {
  readonly #dir: string;
  readonly #onCorrupt?: (o: CorruptPosition) => void;
  readonly #durable: boolean;
  readonly #now: () => Date;
  /** Positions read, by path, with the file's identity when read. */
  readonly #known = new Map<string, { identity: string; position: Position }>();

  constructor(o: LoopStoreOptions) {
    this.#dir = o.dir;
    this.#onCorrupt = o.onCorrupt;
    this.#durable = o.durable ?? true;
    this.#now = o.now ?? (() => new Date());
  }

  /** The position file of `ref`. Throws a `RangeError` when `ref` is not a work item's ref. */
  pathOf(ref: string): string {
    const item = parseWorkItem(ref);
    if (!item) throw new RangeError(`"${ref}" is not a work item ref (github:OWNER/REPO#N)`);
    return join(this.#dir, `${slugOf(item)}.json`);
  }

  /**
   * The item's position; undefined when it has none (or it was corrupt, and is now kept aside).
   * A file read before and not changed since (same inode, size and mtime: every write is a
   * rename, so a new inode) is answered from memory after one `stat`: every comment asks for its
   * item's loop, and reading and checking the file each time showed in the burst bench.
   */
  async get(ref: string): Promise<Position | undefined> {
    const path = this.pathOf(ref);
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        this.#known.delete(path);
        return undefined;
      }
      throw err;
    }
    const identity = `${info.ino}:${info.size}:${info.mtime?.getTime()}`;
    const known = this.#known.get(path);
    if (known?.identity === identity) return structuredClone(known.position);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
    const read = readPosition(text, ref);
    if ("position" in read) {
      if (this.#known.size >= KNOWN_MAX) this.#known.clear();
      this.#known.set(path, { identity, position: structuredClone(read.position) });
      return read.position;
    }
    this.#known.delete(path);
    const keptAs = await this.#keepAside(path);
    this.#onCorrupt?.({ ref, path, keptAs, error: read.error });
    return undefined;
  }

  /** Writes the item's position atomically (the file of `position.workItem`). */
  async put(position: Position): Promise<void> {
    const path = this.pathOf(position.workItem);
    this.#known.delete(path);
    await writeFileAtomic(path, JSON.stringify(position, null, 2) + "\n", {
      durable: this.#durable,
    });
  }

  /** Renames a corrupt file aside under a name not yet taken; the name it now has. */
  async #keepAside(path: string): Promise<string> {
    const base = `${path}.corrupt-${stamp(this.#now())}`;
    for (let n = 1;; n++) {
      const keptAs = n === 1 ? base : `${base}-${n}`;
      try {
        await Deno.lstat(keptAs);
        continue; // taken
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
      await Deno.rename(path, keptAs);
      return keptAs;
    }
  }
}
