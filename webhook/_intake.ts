/**
 * The receiver's side of the intake worker (`_intake_worker.ts`): starts it, hands each
 * accepted delivery and each event it reports to the receiver, gives back admission credit when
 * a delivery's routing ends, and stops it.
 *
 * The worker is a module worker with the daemon's own permissions; `deno task compile` embeds it
 * (`--include webhook/_intake_worker.ts`).
 *
 * @module
 */
import { later } from "../async/mod.ts";
import type { EventSink } from "../events/mod.ts";
import {
  CREDIT_BYTES,
  CREDIT_JOBS,
  type IntakeDelivery,
  type IntakeInit,
  type IntakeReply,
  type IntakeRequest,
} from "./_intake_protocol.ts";

/** Options of {@linkcode IntakeThread.start}. */
export interface IntakeOptions extends Omit<IntakeInit, "credits"> {
  /**
   * Told each accepted delivery, in the order they were accepted, with when this thread took it
   * (`performance.now()`: one moment for all of a batch).
   */
  onDelivery(delivery: IntakeDelivery, receivedAt: number): void;
  /** Where the handler's events go. */
  events: EventSink;
  /** Told when the worker dies of an error (the receiver no longer answers). */
  onDeath(message: string): void;
  /** The worker module; for tests. */
  workerUrl?: URL;
}

const WORKER_URL = new URL("./_intake_worker.ts", import.meta.url);

/** An error of the worker, rebuilt on this side with its class (e.g. `Deno.errors.AddrInUse`). */
function rebuilt(name: string, message: string): Error {
  const Known = (Deno.errors as unknown as Record<string, ErrorConstructor | undefined>)[name];
  const error = Known ? new Known(message) : new Error(message);
  if (!Known) error.name = name;
  return error;
}

/** A running intake worker. */
export class IntakeThread {
  readonly addr: Deno.NetAddr;
  readonly #worker: Worker;
  readonly #credits: Int32Array;
  #stopped?: (requestsFinished: boolean) => void;
  #stopping?: Promise<boolean>;
  #dead = false;
  #settled: number[] = [];
  #closing?: Promise<void>;
  #closed?: () => void;

  private constructor(worker: Worker, credits: Int32Array, addr: Deno.NetAddr) {
    this.#worker = worker;
    this.#credits = credits;
    this.addr = addr;
  }

  /** Starts the worker and waits until it listens; rejects with its bind error. */
  static start(opts: IntakeOptions): Promise<IntakeThread> {
    const credits = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(opts.workerUrl ?? WORKER_URL, {
      type: "module",
      name: "gh-webhook intake",
    });
    let thread: IntakeThread | undefined;
    return new Promise<IntakeThread>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<IntakeReply>) => {
        const m = e.data;
        if (m.t === "batch") {
          // the records first: a delivery's `webhook.received` is then written before its routing
          for (const item of m.items) {
            if (item.t === "event") {
              opts.events.emit(item.event, item.fields, { level: item.level });
            }
          }
          const at = performance.now();
          for (const item of m.items) if (item.t === "delivery") opts.onDelivery(item, at);
        } else if (m.t === "listening") {
          const addr: Deno.NetAddr = { transport: "tcp", hostname: m.hostname, port: m.port };
          resolve(thread = new IntakeThread(worker, credits, addr));
        } else if (m.t === "failed") {
          worker.terminate();
          reject(rebuilt(m.name, m.message));
        } else if (m.t === "stopped") {
          if (thread) thread.#stopped?.(m.requestsFinished);
        } else if (m.t === "closed") {
          if (thread) thread.#closed?.();
        }
      };
      worker.onerror = (e) => {
        e.preventDefault();
        worker.terminate();
        if (!thread) return reject(new Error(`the receiver's HTTP worker failed: ${e.message}`));
        thread.#dead = true;
        thread.#stopped?.(false);
        thread.#closed?.();
        opts.onDeath(e.message);
      };
      const { workerUrl: _, onDelivery: _d, events: _e, onDeath: _o, ...init } = opts;
      const message: IntakeRequest = { t: "init", init: { ...init, credits: credits.buffer } };
      worker.postMessage(message);
    });
  }

  /** Tells the worker why the daemon is degraded (`/health` answers 503 while any). */
  health(reasons: string[]): void {
    if (this.#dead || this.#stopping) return;
    const message: IntakeRequest = { t: "health", reasons };
    this.#worker.postMessage(message);
  }

  /** Gives back the credit of one delivery of `bytes` body bytes (its routing ended). */
  release(bytes: number): void {
    Atomics.sub(this.#credits, CREDIT_JOBS, 1);
    Atomics.sub(this.#credits, CREDIT_BYTES, bytes);
  }

  /**
   * The routing of inbox delivery `seq` ended: it is marked settled in the inbox (told to the
   * worker once per event-loop tick, for all settled in it). Call after {@linkcode release}.
   */
  settle(seq: number): void {
    if (this.#settled.push(seq) > 1) return;
    queueMicrotask(() => {
      const seqs = this.#settled;
      this.#settled = [];
      if (this.#dead || this.#closing) return; // unsettled: replayed at the next start
      const message: IntakeRequest = { t: "settled", seqs };
      this.#worker.postMessage(message);
    });
  }

  /**
   * Stops serving: new connections are refused at once, requests in progress get `graceMs`.
   * Resolves `true` when those requests all finished in time. The worker lives on (for the
   * settled marks of the routing that ends meanwhile) until {@linkcode close}.
   */
  stop(opts: { graceMs: number }): Promise<boolean> {
    return this.#stopping ??= new Promise<boolean>((resolve) => {
      if (this.#dead) return resolve(false);
      this.#stopped = resolve;
      const message: IntakeRequest = { t: "stop", graceMs: opts.graceMs };
      this.#worker.postMessage(message);
    });
  }

  /**
   * After {@linkcode stop} and the last routing: the settled marks told, the inbox and the log
   * closed, the worker ended (at the latest after `timeoutMs`).
   */
  close(opts: { timeoutMs: number } = { timeoutMs: 2000 }): Promise<void> {
    return this.#closing ??= new Promise<void>((resolve) => {
      if (this.#dead) return resolve();
      const seqs = this.#settled;
      this.#settled = [];
      if (seqs.length > 0) this.#worker.postMessage({ t: "settled", seqs } as IntakeRequest);
      this.#worker.postMessage({ t: "close" } as IntakeRequest);
      const cancel = later(resolve, opts.timeoutMs);
      this.#closed = () => {
        cancel();
        resolve();
      };
    }).finally(() => this.#worker.terminate());
  }
}
