/**
 * The messages between the receiver (`receiver.ts`, the daemon's thread) and its intake worker
 * (`_intake_worker.ts`, the thread that serves HTTP). Shared by both sides.
 *
 * The admission counters live in shared memory ({@linkcode CREDIT_JOBS}, {@linkcode CREDIT_BYTES}
 * of an `Int32Array` over a `SharedArrayBuffer`): only the worker adds (when it accepts a
 * delivery) and only the receiver subtracts (when the delivery's routing ends), so the worker
 * can refuse with 503 at once, without asking, and the bounds hold ({@linkcode takeCredit}).
 *
 * @module
 */
import type { EventLogSettings, Level } from "../events/mod.ts";
import { fits } from "./queue.ts";

/** Index of the deliveries accepted and not yet routed. */
export const CREDIT_JOBS = 0;
/** Index of their body bytes. */
export const CREDIT_BYTES = 1;

/**
 * The worker takes the credit of one delivery of `bytes` when it fits `bounds`; false, taking
 * nothing, when it does not. Only the worker adds, so what it reads cannot grow before it adds.
 */
export function takeCredit(
  credits: Int32Array,
  bytes: number,
  bounds: { maxJobs: number; maxBytes: number },
): boolean {
  const held = {
    jobs: Atomics.load(credits, CREDIT_JOBS),
    bytes: Atomics.load(credits, CREDIT_BYTES),
  };
  if (!fits(held, bytes, bounds)) return false;
  Atomics.add(credits, CREDIT_JOBS, 1);
  Atomics.add(credits, CREDIT_BYTES, bytes);
  return true;
}

/** What the worker is started with (the first message). */
export interface IntakeInit {
  hostname: string;
  port: number;
  path: string;
  secret?: string;
  maxBodyBytes: number;
  /** How long a connection may take to send its headers (ms); default `server.ts`'s. */
  headersTimeoutMs?: number;
  /** The most connections open at once; default `server.ts`'s. */
  maxConnections?: number;
  /** Whether accepted deliveries are handed over (routing on); off: only recorded. */
  route: boolean;
  /** Most deliveries accepted and not yet routed (waiting + running). */
  maxJobs: number;
  /** Most body bytes accepted and not yet routed. */
  maxBytes: number;
  credits: SharedArrayBuffer;
  /**
   * The event log the worker writes its own records to (`webhook.received`, `webhook.rejected`),
   * when the receiver's sink is one: the worker then builds and writes them itself. Absent: they
   * are sent to the receiver's sink.
   */
  log?: EventLogSettings;
  /**
   * The durable inbox (routing on): each delivery is appended and synced before its 202, and
   * those an earlier run left unsettled are handed over first (`maxBytes`: default `inbox.ts`'s).
   * Absent: none (bounded in memory).
   */
  inbox?: { dir: string; maxBytes?: number };
}

/** One accepted delivery: its body as text (checked to be a JSON object) and its size in bytes. */
export interface IntakeDelivery {
  t: "delivery";
  ghEvent: string;
  deliveryId: string;
  text: string;
  bytes: number;
  /** Its place in the inbox (settled with {@linkcode IntakeRequest} `settled`); none without one. */
  seq?: number;
  /** Accepted by an earlier run and replayed at this start. */
  replayed?: boolean;
}

/** An event the worker's handler emitted, to be written by the receiver's sink. */
export interface IntakeEvent {
  t: "event";
  event: string;
  fields?: Record<string, unknown>;
  level?: Level;
}

/** Worker → receiver. Items are sent in batches (one message per tick of the worker's loop). */
export type IntakeItem = IntakeDelivery | IntakeEvent;

/** Worker → receiver, one message each. */
export type IntakeReply =
  | { t: "listening"; hostname: string; port: number }
  | { t: "failed"; name: string; message: string }
  | { t: "batch"; items: IntakeItem[] }
  | { t: "stopped"; requestsFinished: boolean }
  | { t: "closed" };

/** Receiver → worker. */
export type IntakeRequest =
  | { t: "init"; init: IntakeInit }
  | { t: "stop"; graceMs: number }
  /** The routing of these inbox deliveries ended (their credit was given back). */
  | { t: "settled"; seqs: number[] }
  /** After `stop` and the last routing: close the inbox and the log, then answer `closed`. */
  | { t: "close" }
  /** Why the daemon is degraded now (`/health` answers 503 with them); empty: healthy. */
  | { t: "health"; reasons: string[] };
