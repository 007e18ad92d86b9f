/**
 * What one notification carries, whatever channel it goes out on: the envelope a webhook
 * channel POSTs and a command channel reads on stdin (a slack channel sends its `summary` and
 * `url` as text), and the nine notification events a `notifications.events` entry routes.
 *
 * ```json
 * { "event": "gate-waiting", "work_item": "github:octo/repo#12",
 *   "summary": "github:octo/repo#12 waits at design-review (pdlc) for a verdict",
 *   "url": "https://github.com/octo/repo/issues/12#issuecomment-1", "ts": "2026-07-22T10:00:00.123Z",
 *   "details": { "loop": "pdlc", "node": "design-review", … } }
 * ```
 *
 * @module
 */
import type { NotificationEventName } from "../config/mod.ts";

/** The notification events, as `notifications.events` names them. */
export const NOTIFY_EVENTS = [
  "work-item-spawned",
  "dispatch-failed",
  "session-died",
  "event-dropped-unauthorized",
  "phase-changed",
  "question-asked",
  "gate-waiting",
  "hook-suspended",
  "suspension-escalated",
] as const satisfies readonly NotificationEventName[];

/** One notification event. */
export type NotifyEvent = typeof NOTIFY_EVENTS[number];

/** The event `the-loop notify test` sends, routed to no role. */
export const TEST_EVENT = "test";

/** One notification. */
export interface Envelope {
  /** The notification event (`test` for `the-loop notify test`). */
  event: NotifyEvent | typeof TEST_EVENT;
  /** The work item's ref, e.g. `github:octo/repo#12`; null when the event names none. */
  work_item: string | null;
  /** One human line, terminal-safe (no control characters). */
  summary: string;
  /** Where to look: the comment the event is about, else the work item on GitHub; or null. */
  url: string | null;
  /** UTC ISO-8601 time the envelope was made. */
  ts: string;
  /** The event-log record's own fields (already scrubbed of secrets). */
  details: Record<string, unknown>;
}
