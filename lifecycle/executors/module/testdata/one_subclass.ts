import { LifecycleHooks } from "./_base.ts";

export const VERSION = "1";

/** The one subclass: picked without an `executor`; `with` reaches its constructor. */
export class Roster extends LifecycleHooks {
  #board: string;
  constructor(opts: { board?: string }) {
    super();
    this.#board = opts.board ?? "none";
  }
  override work_item_start() {
    return { proceed: true, reason: `board ${this.#board}` };
  }
}
