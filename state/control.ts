/**
 * Control records: the last execution-control command (start, stop, pause, resume) recorded for
 * each work item, one JSON file per item under `<routing.registryDir>/control/<slug>.json`, written
 * atomically. "Start requested" means the last command was `start` or `resume`. The record
 * survives restarts, so an accepted start is durable. The dispatcher writes them;
 * the poller reads them to know whether an item is armed.
 *
 * @module
 */
import { basename, join } from "node:path";
import { writeFileAtomic } from "./atomic.ts";
import { DirListing } from "./stat_gate.ts";
import { parseWorkItem, slugOf } from "./work_item.ts";

/** An execution-control command. */
export type ControlCommand = "start" | "stop" | "pause" | "resume";

/** One recorded command. */
export interface ControlRecord {
  ref: string;
  command: ControlCommand;
  source: "comment" | "cli";
  actor: string;
  requestedAt: string;
  /**
   * Where the command came from: the comment's `html_url`, or `issued from the-loop CLI by
   * <actor>` for a verb (the field keeps the name the original record gave it).
   */
  note: string;
  /** `start` only: the loop the item is to walk (`loop=NAME`, `sessions start --loop NAME`). */
  loop?: string;
}

const COMMANDS = new Set(["start", "stop", "pause", "resume"]);

/** The control records beside one session registry. */
export class ControlStore {
  readonly dir: string;

  readonly #listing: DirListing;

  /** The records of the registry in `registryDir` (`routing.registryDir`): its `control/` folder. */
  constructor(registryDir: string) {
    this.dir = join(registryDir, "control");
    this.#listing = new DirListing(this.dir);
  }

  #path(ref: string): string {
    const item = parseWorkItem(ref);
    if (!item) throw new RangeError(`"${ref}" is not a work item ref`);
    return join(this.dir, `${slugOf(item)}.json`);
  }

  /** The record of `ref`, or `undefined` (also for a file that is not a control record). */
  // a synchronous read: a tiny local file, asked on every event (see `registry.ts`)
  // deno-lint-ignore require-await
  async get(ref: string): Promise<ControlRecord | undefined> {
    try {
      const path = this.#path(ref);
      // asked on every event, mostly about items with no record: answered from the listing
      if (!this.#listing.mayHave(basename(path))) return undefined;
      const value = JSON.parse(Deno.readTextFileSync(path));
      return value && value.ref === ref && COMMANDS.has(value.command) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Records a command (replacing the previous one). */
  async record(record: ControlRecord): Promise<void> {
    await writeFileAtomic(this.#path(record.ref), JSON.stringify(record, null, 2) + "\n");
  }

  /** Forgets the item's record (after its work item closed). */
  async clear(ref: string): Promise<void> {
    await Deno.remove(this.#path(ref)).catch(() => {});
  }

  /** Whether the last recorded command for `ref` was a start (or a resume). */
  async startRequested(ref: string): Promise<boolean> {
    const record = await this.get(ref);
    return record?.command === "start" || record?.command === "resume";
  }
}
