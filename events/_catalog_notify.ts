/**
 * Catalog entries of the notifier (`notify/`, merged into {@linkcode EVENT_TYPES} by
 * `catalog.ts`): each attempt to send a notification on a channel, and an envelope dropped
 * before it was sent. Never a URL's path or query, never a secret (docs/notifications.md).
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const CHANNEL = "string — the channel's name (collaborators[].notifications.channels[].name)";
const TYPE = "string — the channel's type: slack | webhook | command";
const NOTIFICATION =
  "string — the notification: work-item-spawned, dispatch-failed, session-died, event-dropped-unauthorized, phase-changed, question-asked, gate-waiting, hook-suspended, suspension-escalated, or test (notify test)";
const WORK_ITEM = "string | null — the work item's ref, e.g. github:owner/repo#12 (null when none)";

/** The notifier's event types. */
export const NOTIFY_EVENTS: Record<string, EventType> = {
  "notify.sent": {
    description: "A notification was sent on a channel: a 2xx answer, or the command exited 0.",
    level: "info",
    fields: {
      channel: CHANNEL,
      type: TYPE,
      notification: NOTIFICATION,
      work_item: WORK_ITEM,
      status: "number — slack, webhook: the HTTP status",
      exit_code: "number — command: the exit code (0)",
      attempts: "number — the attempts it took (1 = the first)",
      ms: "number — milliseconds from the first attempt to the answer",
    },
  },
  "notify.failed": {
    description:
      "One attempt to send a notification failed (an answer that is not a 2xx, a non-zero exit, a timeout, a network error, a variable not set); retried while will_retry is true.",
    level: "warning",
    fields: {
      channel: CHANNEL,
      type: TYPE,
      notification: NOTIFICATION,
      work_item: WORK_ITEM,
      error: "string — what failed (a URL shown by its scheme and host only; never a secret)",
      status: "number — slack, webhook: the HTTP status, when there was an answer",
      exit_code: "number — command: the exit code, when it exited",
      attempts: "number — the attempts made so far (1 = the first)",
      will_retry: "boolean — whether it is sent again after a backoff (3 retries at most)",
    },
  },
  "notify.dropped": {
    description:
      "A notification was dropped before it was sent: its channel's backlog was full (the oldest goes), or the notifier closed with it still waiting.",
    level: "warning",
    fields: {
      channel: CHANNEL,
      notification: NOTIFICATION,
      work_item: WORK_ITEM,
      reason: "string — backlog-full | closed",
    },
  },
};
