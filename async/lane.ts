/**
 * The reactions' lane: GitHub reactions are for people, and a second's delay is lost on them,
 * while every millisecond a burst's deliveries wait for the daemon's thread shows in how soon the
 * agents hear of the comments. So reactions wait while the dispatcher has events running or
 * waiting, and go out (a few at a time, in the order they were asked for) once it has none — or,
 * under load that never lets up, at the latest `maxWaitMs` after they were asked for.
 *
 * @module
 */

/** How long a reaction waits at most for the dispatcher to be idle. */
export const MAX_WAIT_MS = 2_000;
/** Reactions sent at once. */
export const CONCURRENCY = 4;
/** How often a waiting lane looks whether the dispatcher became idle. */
const RECHECK_MS = 10;

interface Task {
  due: number;
  run: () => Promise<void>;
  done: () => void;
}

/** Options of {@linkcode Lane}. */
export interface LaneOptions {
  /** Whether the dispatcher has events running or waiting. */
  busy: () => boolean;
  maxWaitMs?: number;
  concurrency?: number;
  now?: () => number;
}

/** Runs tasks when the dispatcher is idle, or once they waited long enough. */
export class Lane {
  readonly #o: Required<LaneOptions>;
  readonly #tasks: Task[] = [];
  #running = 0;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(opts: LaneOptions) {
    this.#o = {
      maxWaitMs: MAX_WAIT_MS,
      concurrency: CONCURRENCY,
      now: () => performance.now(),
      ...opts,
    };
  }

  /** Runs `task` in its turn; resolves when it ran (it must not throw: reactions never do). */
  run(task: () => Promise<void>): Promise<void> {
    return new Promise((done) => {
      this.#tasks.push({ due: this.#o.now() + this.#o.maxWaitMs, run: task, done });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#tasks.length > 0 && this.#running < this.#o.concurrency) {
      if (this.#o.busy() && this.#tasks[0].due > this.#o.now()) {
        this.#timer ??= setTimeout(() => {
          this.#timer = undefined;
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
