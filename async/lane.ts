/**
 * A lane for work that can wait: its tasks wait while `busy()` says something more urgent runs,
 * and go (a few at a time, in the order they were asked for) once it says nothing does — or,
 * under load that never lets up, at the latest `maxWaitMs` after they were asked for.
 *
 * The dispatcher's reactions take it: GitHub reactions are for people, and a second's delay is
 * lost on them, while every millisecond a burst's deliveries wait for the daemon's thread shows
 * in how soon the agents hear of the comments.
 *
 * @module
 */
import { later } from "./later.ts";

/** How long a task waits at most for `busy()` to be false, by default. */
const MAX_WAIT_MS = 2_000;
/** Tasks run at once, by default. */
const CONCURRENCY = 4;
/** How often a waiting lane looks whether `busy()` became false. */
const RECHECK_MS = 10;

interface Task {
  due: number;
  run: () => Promise<void>;
  done: () => void;
}

/** Options of {@linkcode Lane}. */
export interface LaneOptions {
  /** Whether the more urgent work runs (the dispatcher: it has events running or waiting). */
  busy: () => boolean;
  /** How long a task waits at most for `busy()` to be false; default 2,000 ms. */
  maxWaitMs?: number;
  /** Tasks run at once; default 4. */
  concurrency?: number;
  /** The clock (ms); for tests. */
  now?: () => number;
}

/** Runs tasks when `busy()` is false, or once they waited long enough. */
export class Lane {
  readonly #o: Required<LaneOptions>;
  readonly #tasks: Task[] = [];
  #running = 0;
  /** The pending recheck's cancel, while one is pending. */
  #recheck?: () => void;

  constructor(opts: LaneOptions) {
    this.#o = {
      maxWaitMs: MAX_WAIT_MS,
      concurrency: CONCURRENCY,
      now: () => performance.now(),
      ...opts,
    };
  }

  /** Runs `task` in its turn; resolves when it ran (a rejection of the task is absorbed). */
  run(task: () => Promise<void>): Promise<void> {
    return new Promise((done) => {
      this.#tasks.push({ due: this.#o.now() + this.#o.maxWaitMs, run: task, done });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#tasks.length > 0 && this.#running < this.#o.concurrency) {
      if (this.#o.busy() && this.#tasks[0].due > this.#o.now()) {
        this.#recheck ??= later(() => {
          this.#recheck = undefined;
          this.#pump();
        }, RECHECK_MS);
        return;
      }
      const task = this.#tasks.shift()!;
      this.#running++;
      task.run().catch(() => {}).finally(() => {
        this.#running--;
        task.done();
        this.#pump();
      });
    }
  }
}
