/**
 * Catalog entries of the control endpoint (merged into {@linkcode EVENT_TYPES} by
 * `catalog.ts`): the daemon's Unix socket the verbs `advance`, `ask` and `reply` reach it
 * through, and what it did with each request. A capability is never in an event.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const PATH = "string — the socket's path, e.g. /repo/.the-loop/poll.sock";
const VERB = "string — advance | ask | reply | resumed (sent by sessions resume)";
const ITEM = "string — the work item's ref, e.g. github:owner/repo#12";

/** The control endpoint's event types. */
export const CONTROL_EVENTS: Record<string, EventType> = {
  "control.listening": {
    description: "The daemon's control endpoint listens (its socket bound, mode 0600).",
    level: "info",
    fields: { path: PATH },
  },
  "control.request_rejected": {
    description:
      "A request on the control endpoint was not one JSON object line within the cap; answered exit 2, nothing done.",
    level: "warning",
    fields: {
      path: PATH,
      reason: "string — too-long | not-json | not-an-object",
    },
  },
  "control.verb": {
    description: "A verb reached the daemon through its control endpoint and was answered.",
    level: "info",
    fields: {
      verb: VERB,
      work_item: ITEM,
      via: "string — the daemon that answered: poll | gh-webhook",
      exit:
        "number — the exit code the CLI exits with: 0 done (or a no-op), 1 refused or failed, 2 malformed",
    },
  },
  "control.verb_refused": {
    description:
      "An advance or ask came without the capability of its work item's session (another item's, or none); nothing done.",
    level: "warning",
    fields: {
      verb: VERB,
      work_item: ITEM,
      via: "string — the daemon that refused: poll | gh-webhook",
      reason:
        "string — missing (no capability) | mismatch (not this work item's) | from-a-session (a reply sent with a session's capability)",
    },
  },
};
