/**
 * The webhook receiver: the HTTP server, the handler and the routing queue put together.
 * Accepting is decoupled from routing twice over:
 *
 * - in time: a delivery is answered 202 once it is verified, parsed and in the durable inbox
 *   (`inbox.ts`: synced to disk; replayed at the next start until its routing settled), and the queue's
 *   workers hand it to the {@linkcode RouteSink} in the background, so a slow route never delays
 *   an answer and a route that throws never takes the server down (`webhook.route_failed`);
 * - in threads: the HTTP server, the body cap, the signature check and the JSON check run in a
 *   worker of their own (`_intake_worker.ts`), which sends each accepted body's text here; this
 *   thread parses it again and routes it. Under load, answering and routing use two cores.
 *
 * The queue's bounds are kept by the worker: it counts the deliveries it handed over, this thread
 * counts down those whose routing ended (and tells it which inbox `seq`s settled). With the inbox,
 * a delivery past the bounds waits on disk and is handed over later, in order; without it, the
 * worker answers 503 when they are reached.
 *
 * ```ts
 * const receiver = await Receiver.start({ hostname: "127.0.0.1", port: 0, path: "/gh-webhook",
 *   secret, sink: router, events: log });
 * receiver.url; // http://127.0.0.1:41234/gh-webhook
 * const report = await receiver.stop({ graceMs: 5000 });
 * ```
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import { EventLog, type EventSink } from "../events/mod.ts";
import type { IngressEvent, RouteSink } from "../ingress/mod.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { IntakeThread } from "./_intake.ts";
import type { IntakeDelivery } from "./_intake_protocol.ts";
import {
  DEFAULT_QUEUE_BYTES,
  DEFAULT_QUEUE_JOBS,
  DEFAULT_QUEUE_WORKERS,
  RouteQueue,
  type RouteQueueOptions,
} from "./queue.ts";

/** Options of {@linkcode Receiver.start}. */
export interface ReceiverOptions {
  hostname: string;
  /** `0` picks a free port. */
  port: number;
  /** The path deliveries are POSTed to, e.g. `/gh-webhook`. */
  path: string;
  /** The webhook secret; absent or empty: deliveries are accepted unverified. */
  secret?: string;
  /** Where accepted deliveries are routed; absent: accepted and logged, routed nowhere. */
  sink?: RouteSink;
  events: EventSink;
  /** Default {@linkcode MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** How long a connection may take to send its headers (ms); default 10 s (`server.ts`). */
  headersTimeoutMs?: number;
  /** The most connections open at once; default 1,024 (`server.ts`). */
  maxConnections?: number;
  /** The routing queue's bounds (see `queue.ts` for the defaults). */
  queue?: Pick<RouteQueueOptions<Job>, "maxJobs" | "maxBytes" | "workers">;
  /** Told when the receiver's HTTP worker died of an error (it no longer answers). */
  onDeath?: (message: string) => void;
  /**
   * The durable inbox (with a sink): each delivery is synced to disk here before its 202, and
   * what an earlier run accepted and did not settle is replayed at start (`inbox.ts`). Absent:
   * deliveries are held in memory only (lost in a crash) and refused past the queue's bounds.
   */
  inbox?: { dir: string; maxBytes?: number };
  /** The intake worker's module; for tests. */
  intakeUrl?: URL;
}

/** One delivery on its way to the route. */
interface Job {
  event: IngressEvent;
  bytes: number;
  /** Its place in the inbox. */
  seq?: number;
}

/** What {@linkcode Receiver.stop} did. */
export interface StopReport {
  /** Requests in progress all finished within the grace time. */
  requestsFinished: boolean;
  /** Deliveries routed while stopping. */
  routed: number;
  /**
   * Delivery ids accepted but not routed by the deadline: they stay in the inbox and are replayed
   * at the next start (without an inbox, GitHub can redeliver them).
   */
  handedBack: string[];
}

/** A running receiver. */
export class Receiver {
  readonly #intake: IntakeThread;
  readonly #queue: RouteQueue<Job>;
  readonly #events: EventSink;
  readonly #path: string;

  private constructor(
    intake: IntakeThread,
    queue: RouteQueue<Job>,
    events: EventSink,
    path: string,
  ) {
    this.#intake = intake;
    this.#queue = queue;
    this.#events = events;
    this.#path = path;
  }

  /** Binds and starts serving; emits `webhook.started`. Rejects with the bind error. */
  static async start(opts: ReceiverOptions): Promise<Receiver> {
    const sink = opts.sink;
    const bounds = {
      maxJobs: opts.queue?.maxJobs ?? DEFAULT_QUEUE_JOBS,
      maxBytes: opts.queue?.maxBytes ?? DEFAULT_QUEUE_BYTES,
      workers: opts.queue?.workers ?? DEFAULT_QUEUE_WORKERS,
    };
    // deliveries arrive only once the intake is started, so `intake` is set by then
    let intake: IntakeThread | undefined = undefined;
    const routeFailed = (d: { ghEvent: string; deliveryId: string }, error: unknown): void =>
      opts.events.emit("webhook.route_failed", {
        gh_event: d.ghEvent.slice(0, 128),
        delivery_id: d.deliveryId.slice(0, 128),
        error: messageOf(error),
      });
    const queue = new RouteQueue<Job>({
      // the worker keeps the bounds; this queue takes whatever it was given
      maxJobs: Infinity,
      maxBytes: Infinity,
      workers: bounds.workers,
      run: async (job, signal) => {
        let settled = false;
        try {
          await sink?.route(job.event, { signal });
          settled = true;
        } catch (error) {
          // routing threw: it ended all the same (not replayed: a redelivery can try again);
          // aborted by a stop: left unsettled, replayed at the next start
          settled = !signal.aborted;
          throw error;
        } finally {
          intake?.release(job.bytes);
          if (settled && job.seq !== undefined) intake?.settle(job.seq);
        }
      },
      onError: (job, error) => {
        routeFailed(job.event, error);
      },
    });
    const onDelivery = (d: IntakeDelivery, receivedAt: number): void => {
      let payload: Record<string, unknown>;
      try {
        // the worker checked it is a JSON object; parsing it again here costs less than copying
        payload = JSON.parse(d.text);
      } catch (error) {
        intake?.release(d.bytes);
        if (d.seq !== undefined) intake?.settle(d.seq);
        return routeFailed(d, error);
      }
      const event: IngressEvent = {
        ghEvent: d.ghEvent,
        deliveryId: d.deliveryId,
        via: "gh-webhook",
        payload,
        receivedAt,
      };
      if (!queue.offer({ event, bytes: d.bytes, seq: d.seq }, d.bytes)) {
        // only a closed queue refuses (the worker keeps the bounds), and it closes only after the
        // worker stopped and its last deliveries were taken: said, should it ever happen
        intake?.release(d.bytes);
        routeFailed(d, new Error("the routing queue was closed"));
      }
    };
    const verified = Boolean(opts.secret);
    intake = await IntakeThread.start({
      hostname: opts.hostname,
      port: opts.port,
      path: opts.path,
      secret: opts.secret || undefined,
      maxBodyBytes: opts.maxBodyBytes ?? MAX_BODY_BYTES,
      headersTimeoutMs: opts.headersTimeoutMs,
      maxConnections: opts.maxConnections,
      route: sink !== undefined,
      // waiting + running: the queue's bound on waiting jobs plus its workers
      maxJobs: bounds.maxJobs + bounds.workers,
      maxBytes: Math.min(bounds.maxBytes, 2 ** 31 - 1),
      inbox: sink ? opts.inbox : undefined,
      onDelivery,
      events: opts.events,
      // a log file is written by the worker too (whole lines, O_APPEND): no record crosses threads
      log: opts.events instanceof EventLog ? opts.events.settings : undefined,
      workerUrl: opts.intakeUrl,
      onDeath: (message) => {
        opts.events.emit("webhook.failed", { error: message });
        opts.onDeath?.(message);
      },
    });
    const receiver = new Receiver(intake, queue, opts.events, opts.path);
    opts.events.emit("webhook.started", {
      url: receiver.url,
      verified,
      routing: sink !== undefined,
      max_body_bytes: opts.maxBodyBytes ?? MAX_BODY_BYTES,
    });
    return receiver;
  }

  /** Why the daemon is degraded now: `/health` answers 503 `{"status":"degraded",…}` while any. */
  degraded(reasons: string[]): void {
    this.#intake.health(reasons);
  }

  /** The bound address. */
  get addr(): Deno.NetAddr {
    return this.#intake.addr;
  }

  /** The delivery URL, e.g. `http://127.0.0.1:8787/gh-webhook`. */
  get url(): string {
    const { hostname, port } = this.#intake.addr;
    const host = hostname.includes(":") ? `[${hostname}]` : hostname;
    return `http://${host}:${port}${this.#path}`;
  }

  /**
   * Stops: refuses new connections, lets requests in progress and queued routing finish for up
   * to `graceMs` (shared), hands back what did not, and emits `webhook.stopped`.
   */
  async stop(opts: { graceMs: number }): Promise<StopReport> {
    const deadline = Date.now() + opts.graceMs;
    const requestsFinished = await this.#intake.stop({ graceMs: opts.graceMs });
    const closed = await this.#queue.close({ timeoutMs: Math.max(0, deadline - Date.now()) });
    await this.#intake.close();
    const report: StopReport = {
      requestsFinished,
      routed: closed.finished,
      handedBack: closed.handedBack.map((j) => j.event.deliveryId),
    };
    this.#events.emit("webhook.stopped", {
      requests_finished: requestsFinished,
      routed_while_stopping: report.routed,
      handed_back: report.handedBack.length,
      handed_back_delivery_ids: report.handedBack.slice(0, 100),
    }, { level: report.handedBack.length > 0 || !requestsFinished ? "warning" : "info" });
    return report;
  }
}
