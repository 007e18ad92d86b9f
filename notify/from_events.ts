/**
 * Which event-log records are notifications: a pure mapping from a record's type and fields to
 * an {@linkcode Envelope}, or `undefined` when the record notifies nobody.
 *
 * | notification                 | raised by the event-log record                                               |
 * | ---------------------------- | ---------------------------------------------------------------------------- |
 * | `work-item-spawned`          | `session.spawned`                                                            |
 * | `dispatch-failed`            | `dispatch.failed` with `will_retry: false` (not stage respawn); `poll.spawn_failed` |
 * | `session-died`               | `session.respawned`; `dispatch.failed` at stage `respawn`                    |
 * | `event-dropped-unauthorized` | `routing.dropped` with reason `unauthorized-actor`; `poll.unauthorized`      |
 * | `phase-changed`              | `loop.entered`, `loop.advanced`, `loop.completed` with `notified: true`      |
 * | `question-asked`             | `session.awaiting_input`                                                     |
 * | `gate-waiting`               | `loop.gate_waiting`                                                          |
 * | `hook-suspended`             | `hooks.suspended`                                                            |
 * | `suspension-escalated`       | `hooks.suspension_escalated`                                                 |
 *
 * `notified` is false when the loop's `phase_changed` hook said `notify: false` (or the phase
 * did not change): that move notifies nobody.
 *
 * @module
 */
import { isSecretKey, maskTokens, REDACTED } from "../events/mod.ts";
import { visible } from "../terminal.ts";
import type { Envelope, NotifyEvent } from "./envelope.ts";

type Fields = Record<string, unknown>;

/** What one record type becomes: its notification, when `fields` make it one. */
type Rule = (fields: Fields) => NotifyEvent | undefined;

const always = (event: NotifyEvent): Rule => () => event;
const whenNotified = (f: Fields) => f.notified === true ? "phase-changed" : undefined;

/** Every record type that can notify → the rule deciding which notification, if any. */
const RULES: Record<string, Rule> = {
  "session.spawned": always("work-item-spawned"),
  "dispatch.failed": (f) =>
    f.stage === "respawn" ? "session-died" : f.will_retry === false ? "dispatch-failed" : undefined,
  "poll.spawn_failed": always("dispatch-failed"),
  "session.respawned": always("session-died"),
  "routing.dropped": (f) =>
    f.reason === "unauthorized-actor" ? "event-dropped-unauthorized" : undefined,
  "poll.unauthorized": always("event-dropped-unauthorized"),
  "loop.entered": whenNotified,
  "loop.advanced": whenNotified,
  "loop.completed": whenNotified,
  "session.awaiting_input": always("question-asked"),
  "loop.gate_waiting": always("gate-waiting"),
  "hooks.suspended": always("hook-suspended"),
  "hooks.suspension_escalated": always("suspension-escalated"),
};

/** The record types that can raise a notification (for docs and tests). */
export const NOTIFYING_TYPES: readonly string[] = Object.keys(RULES);

const str = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : String(v));

/** One line: whitespace runs folded, control characters made visible, at most 300 characters. */
export function oneLine(text: string, max = 300): string {
  const line = visible(text.replace(/\s+/g, " ").trim(), { multiline: false });
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

/** The work item a record names: `work_item`, else the first of `work_items`. */
function workItemOf(f: Fields): string | null {
  if (typeof f.work_item === "string" && f.work_item) return f.work_item;
  if (Array.isArray(f.work_items) && typeof f.work_items[0] === "string") return f.work_items[0];
  return null;
}

const REF = /^github:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)#(\d+)$/;

/**
 * A work item's page on GitHub: `github:owner/repo#N` → `https://github.com/owner/repo/issues/N`
 * (GitHub sends issues/N on to pulls/N for a pull request); undefined for another ref.
 */
export function workItemUrl(ref: string): string | undefined {
  const m = REF.exec(ref);
  return m ? `https://github.com/${m[1]}/${m[2]}/issues/${m[3]}` : undefined;
}

/**
 * The record's fields as plain JSON data, scrubbed as the event log scrubs them (a tapped sink
 * sees the fields before the log does): a secret-looking key's value redacted, tokens masked.
 */
function plainFields(fields: Fields): Record<string, unknown> {
  try {
    const text = JSON.stringify(fields, (key, value) => {
      if (key !== "" && isSecretKey(key)) return REDACTED;
      return typeof value === "string" ? maskTokens(value) : value;
    });
    return text === undefined ? {} : JSON.parse(text);
  } catch {
    return {}; // a cycle or a bigint: no details rather than no notification
  }
}

/** Each notification's one line, from the record's fields (the item's ref put first). */
const SUMMARIES: Record<NotifyEvent, (f: Fields, type: string) => string> = {
  "work-item-spawned": (f) => `a ${str(f.harness) || "harness"} session was spawned`,
  "dispatch-failed": (f, type) =>
    type === "poll.spawn_failed"
      ? `the poller gave up starting it after ${str(f.attempts)} attempts: ${str(f.reason)}`
      : `a dispatch failed for good at ${str(f.stage)}: ${str(f.error)}`,
  "session-died": (f, type) =>
    type === "session.respawned"
      ? `its session's harness was found dead and relaunched` +
        (f.resumed === true ? " (conversation resumed)" : " (fresh conversation)")
      : `its session's harness was found dead and could not be relaunched: ${str(f.error)}`,
  "event-dropped-unauthorized": (f) =>
    `an event by ${str(f.actor) || "an unknown login"} was dropped: not an authorized user`,
  "phase-changed": (f, type) =>
    type === "loop.advanced"
      ? `moved from ${str(f.from)} to ${str(f.to)} (${str(f.outcome)}, by ${str(f.by)})`
      : type === "loop.completed"
      ? `completed its loop ${str(f.loop)} at ${str(f.node)}`
      : `entered loop ${str(f.loop)} at ${str(f.node)} (phase ${str(f.phase)})`,
  "question-asked": (f) => `the agent asks: ${str(f.summary) || str(f.question)}`,
  "gate-waiting": (f) => `waits at ${str(f.node)} (${str(f.loop)}) for a verdict`,
  "hook-suspended": (f) => `suspended by hook ${str(f.hook)} at ${str(f.point)}: ${str(f.error)}`,
  "suspension-escalated": (f) =>
    `the suspension by hook ${str(f.hook)} at ${str(f.point)} (since ${
      str(f.since)
    }) was escalated`,
};

/**
 * The notification an event-log record raises, or `undefined` when it raises none: the record's
 * `type` and `fields` (as emitted), and the time the envelope is made.
 */
export function envelopeOf(type: string, fields: Fields, now: Date): Envelope | undefined {
  const rule = Object.hasOwn(RULES, type) ? RULES[type] : undefined;
  const event = rule?.(fields);
  if (event === undefined) return undefined;
  const workItem = workItemOf(fields);
  const said = SUMMARIES[event](fields, type);
  const comment = typeof fields.comment_url === "string" && fields.comment_url
    ? fields.comment_url
    : undefined;
  return {
    event,
    work_item: workItem,
    summary: oneLine(maskTokens(workItem ? `${workItem}: ${said}` : said)),
    url: comment ?? (workItem ? workItemUrl(workItem) ?? null : null),
    ts: now.toISOString(),
    details: plainFields(fields),
  };
}
