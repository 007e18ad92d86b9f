/**
 * The webhook receiver: the HTTP server, the handler and the routing queue put together.
 * Accepting is decoupled from routing: a delivery is answered 202 once it is verified, parsed
 * and queued, and the queue's workers hand it to the {@linkcode RouteSink} in the background,
 * so a slow route never delays an answer and a route that throws never takes the server down
 * (`webhook.route_failed`).
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
import type { EventSink } from "../events/mod.ts";
import type { IngressEvent, RouteSink } from "../ingress/mod.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { createHandler } from "./handler.ts";
import { RouteQueue, type RouteQueueOptions } from "./queue.ts";
import { WebhookServer } from "./server.ts";
import { SignatureVerifier } from "./signature.ts";

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
  /** The routing queue's bounds (see `queue.ts` for the defaults). */
  queue?: Pick<RouteQueueOptions<IngressEvent>, "maxJobs" | "maxBytes" | "workers">;
}

/** What {@linkcode Receiver.stop} did. */
export interface StopReport {
  /** Requests in progress all finished within the grace time. */
  requestsFinished: boolean;
  /** Deliveries routed while stopping. */
  routed: number;
  /** Delivery ids accepted but not routed by the deadline (GitHub can redeliver them). */
  handedBack: string[];
}

/** A running receiver. */
export class Receiver {
  readonly #server: WebhookServer;
  readonly #queue: RouteQueue<IngressEvent>;
  readonly #events: EventSink;
  readonly #path: string;

  private constructor(
    server: WebhookServer,
    queue: RouteQueue<IngressEvent>,
    events: EventSink,
    path: string,
  ) {
    this.#server = server;
    this.#queue = queue;
    this.#events = events;
    this.#path = path;
  }

  /** Binds and starts serving; emits `webhook.started`. */
  static async start(opts: ReceiverOptions): Promise<Receiver> {
    const verifier = opts.secret ? await SignatureVerifier.create(opts.secret) : undefined;
    const sink = opts.sink;
    const queue = new RouteQueue<IngressEvent>({
      ...opts.queue,
      run: async (event, signal) => {
        await sink?.route(event, { signal });
      },
      onError: (event, error) => {
        opts.events.emit("webhook.route_failed", {
          gh_event: event.ghEvent.slice(0, 128),
          delivery_id: event.deliveryId.slice(0, 128),
          error: messageOf(error),
        });
      },
    });
    const handler = createHandler({
      path: opts.path,
      verifier,
      events: opts.events,
      maxBodyBytes: opts.maxBodyBytes,
      accept: sink ? (event, bytes) => queue.offer(event, bytes) : () => true,
    });
    const server = WebhookServer.start({ hostname: opts.hostname, port: opts.port, handler });
    const receiver = new Receiver(server, queue, opts.events, opts.path);
    opts.events.emit("webhook.started", {
      url: receiver.url,
      verified: verifier !== undefined,
      routing: sink !== undefined,
      max_body_bytes: opts.maxBodyBytes ?? MAX_BODY_BYTES,
    });
    return receiver;
  }

  /** The bound address. */
  get addr(): Deno.NetAddr {
    return this.#server.addr;
  }

  /** The delivery URL, e.g. `http://127.0.0.1:8787/gh-webhook`. */
  get url(): string {
    const { hostname, port } = this.#server.addr;
    const host = hostname.includes(":") ? `[${hostname}]` : hostname;
    return `http://${host}:${port}${this.#path}`;
  }

  /**
   * Stops: refuses new connections, lets requests in progress and queued routing finish for up
   * to `graceMs` (shared), hands back what did not, and emits `webhook.stopped`.
   */
  async stop(opts: { graceMs: number }): Promise<StopReport> {
    const deadline = Date.now() + opts.graceMs;
    const requestsFinished = await this.#server.shutdown({ graceMs: opts.graceMs });
    const closed = await this.#queue.close({ timeoutMs: Math.max(0, deadline - Date.now()) });
    const report: StopReport = {
      requestsFinished,
      routed: closed.finished,
      handedBack: closed.handedBack.map((e) => e.deliveryId),
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
