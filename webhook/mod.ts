/**
 * The GitHub webhook receiver (`the-loop gh-webhook start`): verifies `X-Hub-Signature-256`
 * (HMAC-SHA256, constant-time), caps bodies without buffering past the cap, answers 202 as soon
 * as a delivery is verified and parsed, and routes it in the background through a bounded queue.
 * See `docs/gh-webhook.md`.
 *
 * `startReceiver` runs it as a daemon in this process (lock, event log, status file, the routing
 * stack with hot reload):
 *
 * ```ts
 * const receiver = startReceiver({ loaded, env, cwd, warn: console.error, port: 0 });
 * const { url } = await receiver.ready;
 * await receiver.stop();
 * ```
 *
 * Or the HTTP intake alone:
 *
 * ```ts
 * import { Receiver } from "../webhook/mod.ts";
 * const receiver = await Receiver.start({ hostname: "127.0.0.1", port: 0, path: "/gh-webhook",
 *   secret: env("THE_LOOP_GH_WEBHOOK_SECRET"), sink: router, events: log });
 * // … on SIGTERM:
 * await receiver.stop({ graceMs: 5000 });
 * ```
 *
 * @module
 */
export { type CappedBody, MAX_BODY_BYTES, readCapped } from "./body.ts";
export { type Accept, createHandler, type HandlerOptions, type RejectReason } from "./handler.ts";
export {
  type CloseResult,
  DEFAULT_QUEUE_BYTES,
  DEFAULT_QUEUE_JOBS,
  DEFAULT_QUEUE_WORKERS,
  RouteQueue,
  type RouteQueueOptions,
} from "./queue.ts";
export { Receiver, type ReceiverOptions, type StopReport } from "./receiver.ts";
export { WebhookServer, type WebhookServerOptions } from "./server.ts";
export { SignatureVerifier } from "./signature.ts";
export {
  readWebhookStatus,
  WEBHOOK_STATUS_FILE,
  type WebhookStatus,
  webhookStatusPath,
  writeWebhookStatus,
} from "./status.ts";
export {
  DRAIN_MS,
  type ReceiverDaemonOptions,
  type ReceiverReady,
  type ReceiverStopped,
  startReceiver,
} from "./start.ts";
