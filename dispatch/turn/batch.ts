/**
 * Deliveries into live sessions, gathered per session. A turn that decides to deliver hands its
 * rendered prompt here and gives its work item's queue back at once, so the next event's turn
 * (its duplicate check, keywords, hooks, prompt) runs while the delivery is under way. The
 * prompts that gather for a session while one of its deliveries is under way go into it next,
 * together, in arrival order: one harness call (one prompt, its events in one frame: `burst.ts`),
 * one note on the session record. A burst of ten comments on one item costs two pastes, not ten;
 * with the process runner, the comments that arrive while a headless run works reach the harness
 * together in the next run instead of one run each.
 *
 * A delivered batch is noted on the session record (at-most-once: its delivery ids) behind the
 * session's next batch, not before it: the next paste goes in while the note is written, and the
 * batches delivered while a note is written are noted together in the next one. An event's
 * outcome comes once its note is written, so what is settled is on record.
 *
 * A turn that does anything else to the session (a control command, a closure, a spawn) first
 * waits for the session's deliveries and their notes to be done ({@linkcode Deliveries.drain}),
 * so the harness sees everything in the order it arrived. At most `limit()` batches are
 * delivered at once (a pool of their own: a turn holding a dispatch slot may be waiting for a
 * batch to be done); notes take no slot.
 *
 * @module
 */
import type { Delivery, DeliveryQueue, Handled } from "./turn.ts";
import type { HarnessUsage, HostedSession } from "../seams.ts";
import { Slots } from "../../async/mod.ts";
import { BATCH_SEPARATOR, shareFrame } from "./burst.ts";

/**
 * Most characters of prompt in one batch (one prompt larger than this still goes, alone). A
 * headless harness gets its prompt as one argument, and Linux refuses an argument over 128 KiB:
 * 32 Ki characters are at most 96 KiB of UTF-8. A batch is counted as it goes in (`burst.ts`): its
 * first prompt whole, then what each next one adds — an event's section of the frame, or a whole
 * prompt and its separator — which leaves the frame's own wording (a few dozen characters more
 * than one event's prompt) inside the margin.
 */
export const MAX_BATCH_CHARS = 32 * 1024;

/** What `p` adds to a batch behind `prev`: its section of their frame, or its whole prompt. */
function added(p: Pending, prev: Pending): number {
  if (p.part && shareFrame(prev.part, p.part)) return p.part.chars;
  return BATCH_SEPARATOR.length + p.prompt.length;
}

/** Takes the next batch off the front of `waiting`: in order, at least one, within the cap. */
function takeBatch(waiting: Pending[]): Pending[] {
  let chars = waiting[0].prompt.length;
  let n = 1;
  while (n < waiting.length) {
    const more = added(waiting[n], waiting[n - 1]);
    if (chars + more > MAX_BATCH_CHARS) break;
    chars += more;
    n++;
  }
  return waiting.splice(0, n);
}

/** One event's delivery, waiting or under way. */
export interface Pending extends Delivery {
  /** Settles the event's dispatch (called once). */
  resolve: (handled: Handled) => void;
}

/** An item that went into its session, waiting for its note: which harness, in what batch. */
export interface Sent {
  pending: Pending;
  hosted: HostedSession;
  /** How many events its paste carried. */
  batch: number;
  /** What the run reported it used (on the first of the batch; noted with it). */
  use?: HarnessUsage;
}

/**
 * Delivers one session's batch: settles the items that were not delivered (failed, dropped, a
 * relaunch's, which notes itself) and returns the others, for {@linkcode NoteRun}. `landed` are
 * the session's ids delivered before and not yet noted (their note is behind). It must not
 * throw.
 */
export type BatchRun = (batch: Pending[], landed: string[]) => Promise<Sent[]>;

/** Notes delivered items on their session (in delivery order) and settles them; never throws. */
export type NoteRun = (sent: Sent[]) => Promise<void>;

/** Options of {@linkcode Deliveries}. */
export interface DeliveriesOptions {
  run: BatchRun;
  note: NoteRun;
  /** Most batches delivered at once (sessions take turns for the slots, in order). */
  limit: () => number;
}

/** What runs and waits, per work item ref. */
export class Deliveries implements DeliveryQueue {
  readonly #run: BatchRun;
  readonly #note: NoteRun;
  readonly #slots: Slots;
  readonly #waiting = new Map<string, Pending[]>();
  readonly #flying = new Map<string, Pending[]>();
  readonly #flights = new Map<string, Promise<void>>();
  /** Delivered, waiting for the note under way to end; then noted together. */
  readonly #unnoted = new Map<string, Sent[]>();
  /** Delivered, their note being written. */
  readonly #noting = new Map<string, Sent[]>();
  readonly #notes = new Map<string, Promise<void>>();
  /** Refs whose batch holds a slot (is being delivered). */
  readonly #delivering = new Set<string>();
  /** The items whose outcome was given (each is settled once). */
  readonly #settled = new WeakSet<Pending>();

  constructor(opts: DeliveriesOptions) {
    this.#run = opts.run;
    this.#note = opts.note;
    this.#slots = new Slots(opts.limit);
  }

  /** Queues a delivery; resolves with its outcome once its batch was delivered (or failed). */
  add(item: Delivery): Promise<Handled> {
    return new Promise((resolve) => {
      const ref = item.turn.ref;
      const pending: Pending = {
        ...item,
        resolve: (handled) => {
          if (this.#settled.has(pending)) return;
          this.#settled.add(pending);
          resolve(handled);
        },
      };
      const waiting = this.#waiting.get(ref);
      if (waiting) waiting.push(pending);
      else this.#waiting.set(ref, [pending]);
      if (!this.#flights.has(ref)) this.#fly(ref);
    });
  }

  /** Whether a delivery of `deliveryId` into `ref`'s session waits, is under way or waits for its note. */
  has(ref: string, deliveryId: string): boolean {
    const holds = (list?: Pending[]) => list?.some((p) => p.event.deliveryId === deliveryId);
    const sent = (list?: Sent[]) => list?.some((s) => s.pending.event.deliveryId === deliveryId);
    return !!(holds(this.#waiting.get(ref)) || holds(this.#flying.get(ref)) ||
      sent(this.#unnoted.get(ref)) || sent(this.#noting.get(ref)));
  }

  /** Resolves once nothing waits, is under way or waits for its note for `ref`. */
  async drain(ref: string): Promise<void> {
    for (;;) {
      const busy = this.#flights.get(ref) ?? this.#notes.get(ref);
      if (!busy) return;
      await busy;
    }
  }

  /** Deliveries under way (their notes too) and waiting, over all sessions. */
  get size(): { running: number; waiting: number } {
    let running = 0;
    let waiting = 0;
    for (const list of this.#unnoted.values()) running += list.length;
    for (const list of this.#noting.values()) running += list.length;
    for (const [ref, list] of this.#flying) {
      if (this.#delivering.has(ref)) running += list.length;
      else waiting += list.length; // taken out, waiting for a slot
    }
    for (const list of this.#waiting.values()) waiting += list.length;
    return { running, waiting };
  }

  #fly(ref: string): void {
    const loop = async () => {
      await null; // the flight is registered before the loop first looks
      for (;;) {
        const waiting = this.#waiting.get(ref);
        if (!waiting) {
          // in the same step as the look: an add() after this starts a new flight
          this.#flights.delete(ref);
          return;
        }
        const batch = takeBatch(waiting);
        if (waiting.length === 0) this.#waiting.delete(ref);
        this.#flying.set(ref, batch);
        const release = await this.#slots.take();
        this.#delivering.add(ref);
        let sent: Sent[] = [];
        const landed = [...this.#unnoted.get(ref) ?? [], ...this.#noting.get(ref) ?? []]
          .map((s) => s.pending.event.deliveryId);
        try {
          sent = await this.#run(batch, landed);
        } catch (err) {
          // a batch run settles its items itself; this is the last guard for an unexpected throw
          this.#fail(batch, err);
        } finally {
          this.#flying.delete(ref);
          this.#delivering.delete(ref);
          release();
        }
        if (sent.length > 0) this.#noteLater(ref, sent);
      }
    };
    this.#flights.set(ref, loop());
  }

  /** Settles as failed the items of `items` not settled yet. */
  #fail(items: Pending[], err: unknown): void {
    for (const p of items) {
      if (!this.#settled.has(p)) p.resolve({ outcome: p.turn.failed("deliver", err) });
    }
  }

  /** Queues `sent` for the session's next note; starts one unless one is being written. */
  #noteLater(ref: string, sent: Sent[]): void {
    const unnoted = this.#unnoted.get(ref);
    if (unnoted) unnoted.push(...sent);
    else this.#unnoted.set(ref, [...sent]);
    if (this.#notes.has(ref)) return;
    const loop = async () => {
      await null; // registered before the loop first looks
      for (;;) {
        const next = this.#unnoted.get(ref);
        if (!next) {
          this.#notes.delete(ref);
          return;
        }
        this.#unnoted.delete(ref);
        this.#noting.set(ref, next);
        try {
          await this.#note(next);
        } catch (err) {
          // a note settles its items itself; this is the last guard for an unexpected throw
          this.#fail(next.map((s) => s.pending), err);
        } finally {
          this.#noting.delete(ref);
        }
      }
    };
    this.#notes.set(ref, loop());
  }
}
