/**
 * "`work_item_start` was asked for this arming": one marker file per work item beside its
 * control record (`<registryDir>/control/<slug>.started`, holding the time), made with
 * `createNew` so two processes cannot both believe they were first. It survives restarts, so
 * the hook is asked once per arming, not once per process; closure, a refusal and a stop
 * remove it, so the next start is a new arming.
 *
 * @module
 */
import { join } from "node:path";
import { parseWorkItem, slugOf } from "../state/work_item.ts";
import type { StartMarks } from "./seams.ts";

/** Start markers under a control folder. */
export class FileStartMarks implements StartMarks {
  readonly dir: string;

  constructor(controlDir: string) {
    this.dir = controlDir;
  }

  #path(ref: string): string {
    const item = parseWorkItem(ref);
    if (!item) throw new RangeError(`"${ref}" is not a work item ref`);
    return join(this.dir, `${slugOf(item)}.started`);
  }

  async mark(ref: string): Promise<boolean> {
    const path = this.#path(ref);
    await Deno.mkdir(this.dir, { recursive: true });
    try {
      await Deno.writeTextFile(path, `${new Date().toISOString()}\n`, { createNew: true });
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return false;
      throw err;
    }
  }

  async clear(ref: string): Promise<void> {
    await Deno.remove(this.#path(ref)).catch(() => {});
  }

  /** Whether `ref` is marked. */
  async has(ref: string): Promise<boolean> {
    try {
      await Deno.stat(this.#path(ref));
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Markers kept in memory over the ones on disk (the dry run: it reads the real markers and
 * writes nothing).
 */
export class MemoryStartMarks implements StartMarks {
  readonly #marked = new Set<string>();
  readonly #onDisk: (ref: string) => Promise<boolean>;

  constructor(onDisk: (ref: string) => Promise<boolean> = () => Promise.resolve(false)) {
    this.#onDisk = onDisk;
  }

  async mark(ref: string): Promise<boolean> {
    const fresh = !this.#marked.has(ref) && !(await this.#onDisk(ref));
    this.#marked.add(ref);
    return fresh;
  }

  clear(ref: string): Promise<void> {
    this.#marked.delete(ref);
    return Promise.resolve();
  }
}
