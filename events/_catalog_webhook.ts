/**
 * Catalog entries of the webhook events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`).
 *
 * @module
 */
import type { EventType } from "./catalog.ts";

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
  "webhook.rejected": {
    description:
      "A request was refused. Levels: invalid-signature, too-large and queue-full are warnings, invalid-payload and internal-error errors, not-found debug. At most one record per reason per second (a flood of bad requests, or a full queue, cannot fill the log); the next one says how many were left out. Internal errors are always written.",
    level: "warning",
    fields: {
      reason:
        "string — invalid-signature (401) | invalid-payload (400) | too-large (413) | queue-full (503) | not-found (404) | internal-error (500)",
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
        "string[] — their delivery ids (at most 100): redeliver them from the webhook's Recent Deliveries",
    },
  },
};
