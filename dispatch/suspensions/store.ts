/**
 * The parked operations, on disk: `<state.root>/suspended/<id>.json`, one
 * {@linkcode SuspensionRecord} per suspended work item (an item has at most one: while it is
 * suspended its later events are held in that record, not parked again). The id is the item's
 * slug and eight hex digits (`github-octo-demo-7-s1a2b3c4d`), so a file names its item and a
 * later suspension of the same item is a new id (a second `hooks resume` of the old one says
 * "nothing suspended").
 *
 * Every write is atomic (`writeFileAtomic`: a reader sees the old record or the new one) and
 * flushed before it answers: a held delivery is answered `held` only once it is on disk. A
 * file that does not read is renamed aside (`<file>.corrupt-<stamp>`) and told to `onCorrupt`,
 * never deleted.
 *
 * Finding an item's record costs no system call while it has none: the folder is listed once,
 * then the store keeps its index by its own writes. Records are made by the daemon that parks
 * them; the CLI only marks one resumed (the same file) or removes one, which a read then finds
 * gone.
 *
 * @module
 */
import { join } from "node:path";
import { writeFileAtomic } from "../../state/atomic.ts";
import { parseWorkItem, slugOf } from "../../state/work_item.ts";
import type { PointName } from "../../lifecycle/sdk/mod.ts";
import type { RoutedEvent } from "../types.ts";
import type { BudgetBreach } from "../../state/usage.ts";

/** The suspensions' folder of a state root: `<state.root>/suspended`. */
export function suspensionsDir(stateRoot: string): string {
  return join(stateRoot, "suspended");
}

/** A lifecycle point asked in a turn before it parked, and the context its hooks left. */
export interface AskedPoint {
  point: PointName;
  context: Record<string, unknown>;
}

/** One delivery held while its work item is suspended, in arrival order. */
export interface HeldDelivery {
  deliveryId: string;
  /** The routed event, as the router handed it (facts only, no payload). */
  event: RoutedEvent;
  /** When it was held. */
  heldAt: string;
  /**
   * The trigger's points already asked before the park (replayed on resume, not asked again);
   * only the delivery whose turn parked has them.
   */
  asked?: AskedPoint[];
}

/** How a suspended operation's chain ends on resume. */
export type SuspensionMode = "wait_for_resume" | "wait_then_retry";

/** One parked operation (schema version 1). */
export interface SuspensionRecord {
  version: 1;
  id: string;
  /** The work item's ref. */
  workItem: string;
  point: PointName;
  /** The hook whose failure parked it. */
  hook: string;
  mode: SuspensionMode;
  /** The mode as declared (`retry_backoff` that ran out parks as `wait_for_resume`). */
  declared: string;
  /** Why the hook failed (first line, scrubbed). */
  error: string;
  /** Calls made before the park. */
  attempts: number;
  since: string;
  /** The hook's `suspendTimeoutMinutes`; absent: it waits for ever. */
  timeoutMinutes?: number;
  /** When it was escalated (once). */
  escalatedAt?: string;
  /** The point's context as the hooks before the failing one left it, secrets redacted. */
  context: Record<string, unknown>;
  /** The suspension comment's URL (null: it could not be posted). */
  commentUrl?: string | null;
  /** Set when resumed: the held deliveries are being delivered; the file goes when they are. */
  resumed?: { at: string; by: string };
  /**
   * A budget's pause (`routing.budgets`, the loop guard), not a hook's: which limit, what was
   * used (then `hook` is `""`, `declared` is `"budget"`). A resume grants one more window.
   */
  budget?: BudgetBreach;
  held: HeldDelivery[];
}

/** Options for {@linkcode SuspensionStore}. */
export interface SuspensionStoreOptions {
  /** `<state.root>/suspended`. */
  dir: string;
  /** Flush each write before answering (default true). */
  durable?: boolean;
  /** Told a record that does not read, after it was renamed aside. */
  onCorrupt?: (o: { path: string; keptAs: string; error: string }) => void;
  now?: () => Date;
}

const ID = /^(.+)-s([0-9a-f]{8})$/;

/** The slug an id names (`undefined` for a name that is not an id). */
export function slugOfId(id: string): string | undefined {
  return ID.exec(id)?.[1];
}

/** Why `v` is not a suspension record; undefined when it is one. */
function flaw(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "not a JSON object";
  const r = v as Record<string, unknown>;
  if (r.version !== 1) return `version ${JSON.stringify(r.version)} is not 1`;
  const strings = ["id", "workItem", "point", "hook", "mode", "error", "since"];
  const bad = strings.filter((k) => typeof r[k] !== "string");
  if (bad.length > 0) return `${bad.join(", ")} must be strings`;
  if (!Array.isArray(r.held)) return "held must be a list";
  if (typeof r.context !== "object" || r.context === null) return "context must be an object";
  return undefined;
}

function stamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
}

/** The suspensions of a state root. */
export class SuspensionStore {
  readonly dir: string;
  readonly #durable: boolean;
  readonly #onCorrupt?: SuspensionStoreOptions["onCorrupt"];
  readonly #now: () => Date;
  /** slug → id of the records on disk (see `#index`). */
  #ids = new Map<string, string>();
  #listed = false;
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(o: SuspensionStoreOptions) {
    this.dir = o.dir;
    this.#durable = o.durable ?? true;
    this.#onCorrupt = o.onCorrupt;
    this.#now = o.now ?? (() => new Date());
  }

  /** The file of `id`. */
  pathOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /** A new id for `ref`'s next suspension. */
  newId(ref: string): string {
    const item = parseWorkItem(ref);
    if (!item) throw new RangeError(`"${ref}" is not a work item ref (github:OWNER/REPO#N)`);
    const hex = [...crypto.getRandomValues(new Uint8Array(4))]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    return `${slugOf(item)}-s${hex}`;
  }

  /**
   * The ids on disk, by slug: the folder listed once, then kept by this store's own writes
   * (records are made by the daemon that parks them; the CLI only marks one resumed, the same
   * file, or removes one, which a read then finds gone). No system call per event.
   */
  async #index(): Promise<Map<string, string>> {
    if (this.#listed) return this.#ids;
    const ids = new Map<string, string>();
    try {
      for await (const e of Deno.readDir(this.dir)) {
        if (!e.isFile || !e.name.endsWith(".json")) continue;
        const id = e.name.slice(0, -".json".length);
        const slug = slugOfId(id);
        if (slug !== undefined) ids.set(slug, id);
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    this.#ids = ids;
    this.#listed = true;
    return ids;
  }

  /** `ref`'s suspension, or undefined when it has none. */
  async ofItem(ref: string): Promise<SuspensionRecord | undefined> {
    const item = parseWorkItem(ref);
    if (!item) return undefined;
    const slug = slugOf(item);
    const index = await this.#index();
    const id = index.get(slug);
    if (id === undefined) return undefined;
    const record = await this.get(id);
    if (!record && index.get(slug) === id) index.delete(slug); // removed (a stop, the CLI)
    return record?.workItem === ref ? record : undefined;
  }

  /** The record of `id`; undefined when there is none (or it was corrupt, now kept aside). */
  async get(id: string): Promise<SuspensionRecord | undefined> {
    if (slugOfId(id) === undefined) return undefined;
    const path = this.pathOf(id);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
    let data: unknown;
    let error: string | undefined;
    try {
      data = JSON.parse(text);
      error = flaw(data);
    } catch (err) {
      error = `not valid JSON (${err instanceof Error ? err.message : String(err)})`;
    }
    if (error === undefined) return data as SuspensionRecord;
    const keptAs = `${path}.corrupt-${stamp(this.#now())}`;
    await Deno.rename(path, keptAs).catch(() => {});
    this.#onCorrupt?.({ path, keptAs, error });
    return undefined;
  }

  /** Every record on disk, oldest first (the folder listed afresh: the CLI reads with it). */
  async list(): Promise<SuspensionRecord[]> {
    this.#listed = false;
    const ids = [...(await this.#index()).values()];
    const records = (await Promise.all(ids.map((id) => this.get(id))))
      .filter((r): r is SuspensionRecord => r !== undefined);
    return records.sort((a, b) => a.since.localeCompare(b.since));
  }

  /** Writes `record` atomically (creating the folder when needed). */
  /**
   * Runs `step` alone among this store's steps for `ref` (in this process): a read, then a
   * write, with no other append to the item's record in between (holds come from a turn and
   * from a batch at once).
   */
  async withItem<T>(ref: string, step: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(ref) ?? Promise.resolve();
    const run = before.then(step, step);
    const settled = run.catch(() => {});
    this.#locks.set(ref, settled);
    try {
      return await run;
    } finally {
      if (this.#locks.get(ref) === settled) this.#locks.delete(ref);
    }
  }

  async put(record: SuspensionRecord): Promise<void> {
    await Deno.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.pathOf(record.id), JSON.stringify(record, null, 2) + "\n", {
      durable: this.#durable,
    });
    const slug = slugOfId(record.id);
    if (this.#listed && slug !== undefined) this.#ids.set(slug, record.id);
  }

  /** Removes `id`'s record; false when it was not there. */
  async remove(id: string): Promise<boolean> {
    try {
      await Deno.remove(this.pathOf(id));
      const slug = slugOfId(id);
      if (slug !== undefined && this.#ids.get(slug) === id) this.#ids.delete(slug);
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
  }

  /**
   * `id` or a work item's ref (`github:OWNER/REPO#N`) → its record; undefined when nothing is
   * suspended there.
   */
  async find(idOrRef: string): Promise<SuspensionRecord | undefined> {
    if (parseWorkItem(idOrRef)) return await this.ofItem(parseWorkItem(idOrRef)!.ref);
    return await this.get(idOrRef);
  }
}
