/**
 * The control records as the poller reads them: once per cycle the control folder is listed, so
 * an item with no record costs no read (a cycle over a thousand items stays a handful of system
 * calls).
 *
 * @module
 */
import type { ControlRecord, ControlStore } from "../state/control.ts";
import { parseWorkItem, slugOf } from "../state/work_item.ts";
import type { ControlView } from "./_cycle.ts";

/** A {@linkcode ControlView} over a {@linkcode ControlStore}. */
export class ControlDirView implements ControlView {
  readonly #store: ControlStore;
  #names: Set<string> | undefined;

  constructor(store: ControlStore) {
    this.#store = store;
  }

  async refresh(): Promise<void> {
    try {
      const names = new Set<string>();
      for await (const e of Deno.readDir(this.#store.dir)) names.add(e.name);
      this.#names = names;
    } catch (error) {
      this.#names = error instanceof Deno.errors.NotFound ? new Set() : undefined;
    }
  }

  get(ref: string): Promise<ControlRecord | undefined> {
    const item = parseWorkItem(ref);
    if (this.#names && item && !this.#names.has(`${slugOf(item)}.json`)) {
      return Promise.resolve(undefined);
    }
    return this.#store.get(ref);
  }

  async clear(ref: string): Promise<void> {
    await this.#store.clear(ref);
    const item = parseWorkItem(ref);
    if (item) this.#names?.delete(`${slugOf(item)}.json`);
  }
}
