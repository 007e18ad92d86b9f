/**
 * One event's turn in its work item's queue, the face the dispatcher (`../dispatcher.ts`) builds
 * on: the per-event context ({@linkcode Turn}, over the resolved options {@linkcode Deps}), the
 * step that decides and does an event ({@linkcode handle}), the session's gathered deliveries
 * ({@linkcode Deliveries}, run by {@linkcode deliverBatch} and noted by {@linkcode noteSent}) and
 * the reactions ({@linkcode react}) the dispatcher hands the turn through its `Deps`.
 *
 * Read bottom-up: `burst.ts` (a batch's one prompt) < `turn.ts` (the context; imports no step) <
 * `_policy.ts`, `_call_sites.ts`, `_render.ts`, `comments.ts`, `reactions.ts` < `_spawn.ts` <
 * `_control.ts`, `_closure.ts`, `batch.ts`, `deliver.ts` < `handle.ts`; `suspend.ts` (parked
 * operations) beside `comments.ts`.
 *
 * @module
 */
export { abortedWaiting, type Answer, type Deps, type Handled, Turn } from "./turn.ts";
export { handle } from "./handle.ts";
export { Deliveries, MAX_BATCH_CHARS } from "./batch.ts";
export { deliverBatch, noteSent } from "./deliver.ts";
export { BATCH_SEPARATOR, REPEAT_LINE } from "./burst.ts";
export { react, reactionTarget } from "./reactions.ts";
export { grantFor, Meters } from "./meters.ts";
export { announcementText } from "./comments.ts";
export { act, verbEvent } from "./verbs.ts";
export {
  discardedEvents,
  publicError,
  type Replay,
  replayed,
  replaysOf,
  resumedRecords,
  resumeSuspension,
} from "./suspend.ts";
