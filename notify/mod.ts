/**
 * Notifications: the daemon's events that someone should hear about (a spawn, a failure for
 * good, a question, a gate waiting, …), routed by `notifications.events` to the roles of
 * `collaborators` and sent on their channels (`slack`, `webhook`, `command`) from a queue of
 * their own, so that sending never blocks or slows dispatch. docs/notifications.md.
 *
 * ```ts
 * const notifier = new Notifier({ config, events: log, env: (n) => Deno.env.get(n) });
 * const sink = notifier.tap(log); // emit through it: notifications follow
 * notifier.reconfigure(next); // hot reload
 * await notifier.close(5_000);
 * ```
 *
 * @module
 */
export {
  type ChannelEntry,
  channelsOf,
  Notifier,
  type NotifierConfig,
  type NotifierOptions,
  type TestResult,
} from "./notifier.ts";
export { type Envelope, NOTIFY_EVENTS, type NotifyEvent, TEST_EVENT } from "./envelope.ts";
export { envelopeOf, NOTIFYING_TYPES, oneLine, workItemUrl } from "./from_events.ts";
export {
  OUTPUT_CAP_BYTES,
  type SendOptions,
  type SendResult,
  sendTo,
  shownUrl,
  SIGNATURE_HEADER,
  signBody,
} from "./channels.ts";
