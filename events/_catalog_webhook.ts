/**
 * Catalog entries of the webhook events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`).
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const DELIVERY_ID = "string | null — the `X-GitHub-Delivery` header (at most 128 characters)";
const GH_EVENT = "string | null — the `X-GitHub-Event` header, e.g. issue_comment";

/** The webhook event types. */
export const WEBHOOK_EVENTS: Record<string, EventType> = {
  "webhook.started": {
    description: "The webhook receiver is listening.",
    level: "info",
    fields: {
      url: "string — the delivery URL, e.g. http://127.0.0.1:8787/gh-webhook",
      verified: "boolean — whether signatures are checked (a secret is set)",
      routing: "boolean — whether accepted deliveries are routed (false with --no-route)",
      max_body_bytes: "number — the body cap; larger deliveries get 413",
    },
  },
  "webhook.unverified": {
    description:
      "No webhook secret is set: deliveries are accepted without a signature check (anyone who can reach the port can post events).",
    level: "warning",
    fields: {
      secret_env: "string — the NAME of the variable that should hold the secret",
    },
  },
  "webhook.blocked": {
    description: "A second receiver refused to start: another one holds the pidfile's lock.",
    level: "warning",
    fields: {
      holder_pid: "number | null — the running receiver's pid",
      pidfile: "string — the pidfile",
    },
  },
  "webhook.received": {
    description: "A delivery was verified, parsed and accepted (answered 202) for routing.",
    level: "info",
    fields: {
      gh_event: GH_EVENT,
      action: "string — `payload.action`, or empty",
      delivery_id: "string — the `X-GitHub-Delivery` header (`local-<uuid>` when it was missing)",
      verified: "boolean — false when no secret is set (the signature was not checked)",
      bytes: "number — the body's size",
    },
  },
  "webhook.inbox_torn": {
    description:
      "Opening the durable webhook inbox found a record cut short or failing its checksum (a crash mid-write): the rest of that segment is skipped (cut off) and the receiver starts all the same. A torn record was never answered 202.",
    level: "warning",
    fields: {
      segment: "string — the segment file",
      offset: "number — where the torn record starts",
      bytes: "number — bytes skipped",
      reason: "string — short | checksum",
    },
  },
  "webhook.inbox_failed": {
    description:
      "The durable webhook inbox could not be written or synced (a full or read-only disk): the deliveries of that batch are answered 503, so GitHub shows a failure that can be redelivered. At most one record a second.",
    level: "error",
    fields: {
      dir: "string — the inbox folder",
      error: "string — what failed",
    },
  },
  "webhook.replayed": {
    description:
      "At start, the deliveries accepted (answered 202) by an earlier run and not settled are routed again, in arrival order, before new ones.",
    level: "info",
    fields: {
      deliveries: "number — how many are replayed",
      delivery_ids: "string[] — the first 100 of their ids",
    },
  },
  "webhook.rejected": {
    description:
      "A request was refused. Levels: invalid-signature, too-large, queue-full and inbox-full are warnings, invalid-payload, inbox-failed and internal-error errors, not-found debug. At most one record per reason per second (a flood of bad requests, or a full queue, cannot fill the log); the next one says how many were left out. Internal errors are always written.",
    level: "warning",
    fields: {
      reason:
        "string — invalid-signature (401) | invalid-payload (400) | too-large (413) | queue-full (503, no inbox) | inbox-full (503: the inbox's disk bound) | inbox-failed (503: the inbox could not be written) | not-found (404) | internal-error (500)",
      status: "number — the HTTP status answered",
      delivery_id: DELIVERY_ID,
      gh_event: GH_EVENT,
      suppressed:
        "number — refusals of this reason left out of the log since the previous record of it",
      detail: "string — invalid-payload: not JSON, or not a JSON object",
      max_bytes: "number — too-large: the cap",
      declared_bytes: "number | null — too-large: the `Content-Length`, when one was sent",
      method: "string — not-found: the request's method",
      path: "string — not-found: the request's path",
      error: "string — internal-error: what went wrong",
    },
  },
  "webhook.route_failed": {
    description:
      "Routing an accepted delivery threw; the receiver carries on with the next delivery.",
    level: "error",
    fields: {
      gh_event: "string — the delivery's event",
      delivery_id: "string — the delivery's id",
      error: "string — what went wrong",
    },
  },
  "webhook.failed": {
    description:
      "The receiver's HTTP thread died of an error it could not answer: no request is answered any more, and `gh-webhook start` stops (exit 1) so a supervisor restarts it.",
    level: "error",
    fields: {
      error: "string — what went wrong",
    },
  },
  "webhook.stopped": {
    description:
      "The receiver stopped (SIGINT/SIGTERM, `gh-webhook stop`). A warning when something was left unfinished.",
    level: "info",
    fields: {
      requests_finished: "boolean — every request in progress finished within the grace time",
      routed_while_stopping: "number — queued deliveries routed while stopping",
      handed_back: "number — accepted deliveries not routed by the deadline",
      handed_back_delivery_ids:
        "string[] — their delivery ids (at most 100): they stay in the inbox and are replayed at the next start (without an inbox, routing off: redeliver them from the webhook's Recent Deliveries)",
    },
  },
};
