/**
 * The async toolkit, in the spirit of `@std/async`: every timer, race and sleep of the product
 * code goes through it (the architecture test holds the rest of the tree to that), and so do the
 * small schedulers the daemon shares.
 *
 * - {@linkcode deadline}, {@linkcode Deadline}, {@linkcode settlesWithin}: time budgets for waits;
 * - {@linkcode withDeadline}: a call handed a signal aborted at its deadline or by an outer one;
 * - {@linkcode delay}: an abortable sleep;
 * - {@linkcode later}, {@linkcode every}: timers as cancels, for what is neither race nor sleep;
 * - {@linkcode KeyedQueue}: one job per key at a time, in arrival order, up to a limit across keys;
 * - {@linkcode Slots}: a fair counting semaphore whose limit is read live;
 * - {@linkcode KeyedLock}: async work serialized per key;
 * - {@linkcode Lane}: tasks that wait while something more urgent is busy;
 * - {@linkcode pacer}: flushes batched at most once an interval.
 *
 * @module
 */
export { Deadline, deadline, DeadlineError, settlesWithin } from "./deadline.ts";
export { withDeadline, type WithDeadlineOptions } from "./with_deadline.ts";
export { delay, type DelayOptions } from "./delay.ts";
export { every, later, type TimerOptions } from "./later.ts";
export { KeyedQueue } from "./keyed_queue.ts";
export { Slots } from "./slots.ts";
export { KeyedLock } from "./keyed_lock.ts";
export { Lane, type LaneOptions } from "./lane.ts";
export { pacer, type PacerOptions } from "./pacer.ts";
