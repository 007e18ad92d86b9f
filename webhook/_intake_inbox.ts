/**
 * The intake worker's side of the durable inbox (`inbox.ts`): a delivery is appended and synced
 * before it is answered 202, then handed to the receiver — at once when the receiver's memory
 * bounds (the admission credits, `_intake_protocol.ts`) have room, else it waits on disk (only
 * its id and place are kept here) and is read back and handed over, in arrival order, as the
 * routing of earlier ones ends. So the inbox, not memory, absorbs a burst: a delivery is
 * refused (503) only when the inbox's disk bound is reached or it cannot be written.
 *
 * At start, what an earlier run accepted and did not settle is handed over first, in arrival
 * order (`webhook.replayed`); a new delivery always goes behind every one waiting.
 *
 * @module
 */
import type { EventSink } from "../events/mod.ts";
import type { IngressEvent } from "../ingress/mod.ts";
import { messageOf } from "../errors.ts";
import type { AcceptAnswer } from "./handler.ts";
import { Inbox, InboxFullError } from "./inbox.ts";
import { type IntakeDelivery, takeCredit } from "./_intake_protocol.ts";

/** Options of {@linkcode IntakeInbox.open}. */
export interface IntakeInboxOptions {
  dir: string;
  /** Default `inbox.ts`'s. */
  maxBytes?: number;
  credits: Int32Array;
  /** The receiver's memory bounds (deliveries handed over and not yet routed). */
  bounds: { maxJobs: number; maxBytes: number };
  /** Hands a delivery to the receiver. */
  send(delivery: IntakeDelivery): void;
  events: EventSink;
}

/** A delivery in the inbox, not yet handed over. */
interface Waiting {
  seq: number;
  ghEvent: string;
  deliveryId: string;
  replayed: boolean;
  body?: Uint8Array;
}

const decoder = new TextDecoder();

/** The inbox as the intake worker uses it. */
export class IntakeInbox {
  readonly #inbox: Inbox;
  readonly #opts: IntakeInboxOptions;
  #waiting: Waiting[] = [];
  #head = 0;
  #failedAt = -Infinity;
  #failure: string | undefined;

  private constructor(inbox: Inbox, opts: IntakeInboxOptions) {
    this.#inbox = inbox;
    this.#opts = opts;
  }

  /**
   * Opens the inbox; what an earlier run left unsettled waits in front of every new delivery and
   * is handed over from {@linkcode IntakeInbox.start}.
   */
  static open(opts: IntakeInboxOptions): IntakeInbox {
    const failures: { to?: (error: unknown) => void } = {};
    const { inbox, pending } = Inbox.open({
      dir: opts.dir,
      maxBytes: opts.maxBytes,
      onTorn: (t) => opts.events.emit("webhook.inbox_torn", { ...t }, { level: "warning" }),
      onError: (error) => failures.to?.(error),
    });
    const self = new IntakeInbox(inbox, opts);
    failures.to = (error) => self.#failed(error);
    if (pending.length > 0) {
      opts.events.emit("webhook.replayed", {
        deliveries: pending.length,
        delivery_ids: pending.slice(0, 100).map((p) => p.deliveryId.slice(0, 128)),
      });
    }
    self.#waiting = pending.map((p) => ({ ...p, replayed: true }));
    return self;
  }

  /** Hands over what waits (once the receiver knows the worker is listening). */
  start(): void {
    this.#drain();
  }

  /** Appends, waits for the disk, hands over (or lets it wait on disk); the handler's answer. */
  async accept(
    event: IngressEvent,
    body: { text: string; bytes: number; raw: Uint8Array },
  ): Promise<AcceptAnswer> {
    let durable: Promise<number>;
    try {
      durable = this.#inbox.append({
        deliveryId: event.deliveryId,
        ghEvent: event.ghEvent,
        body: body.raw,
      });
    } catch (error) {
      if (error instanceof InboxFullError) return "inbox-full";
      this.#failed(error);
      return "inbox-failed";
    }
    let seq: number;
    try {
      seq = await durable;
    } catch {
      return "inbox-failed"; // said by `onError`
    }
    this.#failure = undefined; // written and synced again: no longer degraded
    const { ghEvent, deliveryId } = event;
    if (this.#head === this.#waiting.length && this.#take(body.bytes)) {
      this.#opts.send({
        t: "delivery",
        ghEvent,
        deliveryId,
        text: body.text,
        bytes: body.bytes,
        seq,
      });
    } else {
      this.#waiting.push({ seq, ghEvent, deliveryId, replayed: false });
    }
    return true;
  }

  /** The routing of `seqs` ended: marked settled, and what waits on disk gets their room. */
  settled(seqs: number[]): void {
    for (const seq of seqs) this.#inbox.settle(seq);
    this.#drain();
  }

  /** Writes what gathered and closes the files. */
  close(): void {
    this.#inbox.close();
  }

  /** Takes the credit of one delivery of `bytes` when it fits. */
  #take(bytes: number): boolean {
    return takeCredit(this.#opts.credits, bytes, this.#opts.bounds);
  }

  /** Hands over, in order, what waits on disk while the receiver has room. */
  #drain(): void {
    while (this.#head < this.#waiting.length) {
      const w = this.#waiting[this.#head];
      try {
        w.body ??= this.#inbox.body(w.seq);
      } catch (error) {
        // not readable back: said, and left for the next start (it stays unsettled)
        this.#failed(error);
        this.#waiting[this.#head++] = undefined as unknown as Waiting;
        continue;
      }
      if (!this.#take(w.body.length)) return;
      this.#waiting[this.#head++] = undefined as unknown as Waiting;
      this.#opts.send({
        t: "delivery",
        ghEvent: w.ghEvent,
        deliveryId: w.deliveryId,
        text: decoder.decode(w.body),
        bytes: w.body.length,
        seq: w.seq,
        ...(w.replayed ? { replayed: true } : {}),
      });
    }
    this.#waiting = [];
    this.#head = 0;
  }

  /**
   * Why the inbox cannot take deliveries now (its last write or sync failed, and none has
   * succeeded since): the receiver is degraded meanwhile (`/health` answers 503).
   */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** `webhook.inbox_failed`, at most once a second. */
  #failed(error: unknown): void {
    this.#failure = messageOf(error);
    const now = performance.now();
    if (now - this.#failedAt < 1000) return;
    this.#failedAt = now;
    this.#opts.events.emit("webhook.inbox_failed", {
      dir: this.#inbox.dir,
      error: messageOf(error),
    }, { level: "error" });
  }
}
