/**
 * Catalog entries of the routing events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`).
 * The router writes them for both ingress paths; only `delivery_id` (and the common `source`)
 * tells which path an event came by.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const GH_EVENT = "string — the GitHub event name (X-GitHub-Event), e.g. issue_comment";
const ACTION = "string — the payload's action, or empty";
const DELIVERY = "string — X-GitHub-Delivery, or the poller's poll-… id";
const ACTOR =
  "string | null — the login that acted: a comment's or review's author when it was written, the sender of an edit, a deletion or a dismissal (null for CI events and unknown actors)";
const AUTHOR =
  "string | null — the comment's or review's author when another login acted (edited, deleted or dismissed it), else null";

/** The routing event types. */
export const ROUTING_EVENTS: Record<string, EventType> = {
  "routing.dropped": {
    description:
      "The router dropped an event before any dispatcher saw it. Level by reason: disabled-event " +
      "debug, unauthorized-actor warning, the others info.",
    level: "info",
    fields: {
      reason:
        "string — disabled-event (not in webhooks.ghWebhook.events) | duplicate-delivery (this delivery id was already routed) | no-work-item (the event names no issue or pull request) | self-authored (the body ends with the-loop's self-marker on its own line, as the-loop writes it) | unauthorized-actor (the actor — or the author of the words another login edited — is not in routing.authorizedUsers, or the list is empty)",
      gh_event: GH_EVENT,
      action: ACTION,
      delivery_id: DELIVERY,
      actor: ACTOR,
      author: AUTHOR,
      work_items: "string[] — the work items the event named (empty when not yet extracted)",
    },
  },
  "routing.linkage_dropped": {
    description:
      "A work item named only by a branch name (issue-N) does not exist on GitHub (404), so the " +
      "router forgot it before anything acted on it.",
    level: "info",
    fields: {
      work_item: "string — the ref the branch name invented",
      linked_from:
        "string | null — the pull request whose head branch named it (null for CI events)",
      gh_event: GH_EVENT,
      action: ACTION,
      delivery_id: DELIVERY,
      reason: "string — not-found",
    },
  },
  "routing.linkage_unavailable": {
    description:
      "GitHub could not say which issues a pull request closes (the GraphQL call failed); the " +
      "router routed the event with the head branch and the closing keywords alone.",
    level: "warning",
    fields: {
      work_item: "string | null — the pull request",
      gh_event: GH_EVENT,
      action: ACTION,
      delivery_id: DELIVERY,
      error: "string — what went wrong (no token)",
    },
  },
  "routing.routed": {
    description:
      "The router handed one work item's value to the dispatcher, and the dispatcher answered " +
      "(one event per routed value, written after the answer).",
    level: "info",
    fields: {
      work_item: "string — the work item the value is for",
      kind: "string — comment | review | review_comment | item | close | ci | presence",
      gh_event: GH_EVENT,
      action: ACTION,
      delivery_id: DELIVERY,
      actor: ACTOR,
      author: AUTHOR,
      labeled: "boolean — the item carries (or was just given) the auto-execute label",
      outcome: "string — delivered | settled | failed",
      reason: "string | null — the dispatcher's reason (settled, failed), else null",
      will_retry: "boolean — failed and retryable: the delivery id was released for a redelivery",
      linked_from: "string | null — the pull request this work item was reached through, else null",
    },
  },
  "routing.policy_warning": {
    description:
      "The routing policy a daemon started (or reloaded) with is probably a mistake: an empty allowlist (every human event is dropped), or an event filter without issues or pull_request.",
    level: "warning",
    fields: { message: "string — what is wrong and what to do" },
  },
};
