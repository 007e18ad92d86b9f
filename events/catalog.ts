/**
 * The one catalog of event types: every `event` the daemon writes is listed here with its
 * default level and its fields. `the-loop events --types` prints it, `docs/events.md` renders it,
 * and a test fails when code emits a type that is missing here.
 *
 * Field descriptions read `type — meaning`. The common fields (`ts`, `source`, `event`, `level`,
 * `pid`) are documented once in {@linkcode COMMON_FIELDS}, not per type.
 *
 * @module
 */

import { ROUTING_EVENTS } from "./_catalog_routing.ts";
import { POLL_EVENTS } from "./_catalog_poll.ts";
import { WEBHOOK_EVENTS } from "./_catalog_webhook.ts";
import { DAEMON_EVENTS } from "./_catalog_daemon.ts";
import { WORKSPACE_EVENTS } from "./_catalog_workspace.ts";
import { SESSIONS_EVENTS } from "./_catalog_sessions.ts";
import { DISPATCH_EVENTS } from "./_catalog_dispatch.ts";
import { LOOPS_EVENTS } from "./_catalog_loops.ts";
import { CONTROL_EVENTS } from "./_catalog_control.ts";
import { NOTIFY_EVENTS } from "./_catalog_notify.ts";
import { UI_EVENTS } from "./_catalog_ui.ts";
import type { EventType, Level } from "./_event_type.ts";

export { type EventType, type Level, LEVELS } from "./_event_type.ts";

/** The fields every record carries. */
export const COMMON_FIELDS: Record<string, string> = {
  ts: "string — UTC ISO-8601 time with milliseconds, e.g. 2026-07-22T10:00:00.123Z",
  source: "string — which part of the daemon wrote it: gh-webhook, poll, sessions, hooks, cli",
  event: "string — the event type, a key of this catalog",
  level: "string — debug | info | warning | error",
  pid: "number — the writing process's id",
};

const POINT = "string — the lifecycle point, e.g. work_item_start";
const HOOK = "string — the hook's declared name";
const SUSPENSION_ID = "string — the suspension's id, as `the-loop hooks suspended` lists it";
const WORK_ITEM = "string | null — the work item's ref, e.g. github:owner/repo#12 (null when none)";

/** Every event type the-loop emits. Add an entry here before emitting a new type. */
export const EVENT_TYPES: Record<string, EventType> = {
  "hooks.loaded": {
    description: "The hook declarations were read and every hook's executor is ready.",
    level: "info",
    fields: {
      count: "number — how many hooks were loaded",
      names: "string[] — their names, in declaration order",
    },
  },
  "hooks.load_failed": {
    description: "The hook declarations could not be loaded.",
    level: "error",
    fields: {
      error: "string — what went wrong",
      strict: "boolean — true when this stops the daemon; false when it runs on without hooks",
    },
  },
  "hooks.ran": {
    description: "One hook was called at one point; its outcome and timing.",
    level: "info",
    fields: {
      point: POINT,
      hook: HOOK,
      kind: "string — module | remote | command",
      work_item: WORK_ITEM,
      started: "string — UTC ISO-8601 time the call started",
      ended: "string — UTC ISO-8601 time the call ended",
      duration_ms: "number — ended minus started, in milliseconds",
      disposition:
        "string — passed | decided | refused | failed | timed_out | skipped (not called: its circuit is open; a required hook's skip refuses the operation)",
      changed: "string[] — the decision keys the hook changed (empty unless decided)",
      exit_code: "number — command hooks: the exit code (absent for other kinds)",
      stdout: "string — command hooks: stdout, capped",
      stderr: "string — command hooks: stderr, capped",
      stdout_truncated: "boolean — command hooks: stdout was longer than the cap",
      stderr_truncated: "boolean — command hooks: stderr was longer than the cap",
    },
  },
  "hooks.decided": {
    description: "A hook's answer changed a decision.",
    level: "info",
    fields: {
      point: POINT,
      hook: HOOK,
      changed: "string[] — the decision keys that changed",
      work_item: WORK_ITEM,
    },
  },
  "hooks.failed": {
    description: "A hook threw, answered something invalid, or could not be reached.",
    level: "error",
    fields: {
      point: POINT,
      hook: HOOK,
      error: "string — what went wrong",
      required: "boolean — true when the failure stops the operation",
      work_item: WORK_ITEM,
    },
  },
  "hooks.refused": {
    description:
      "A hook refused the operation: an answer with proceed=false, a command hook exiting 2, or a required hook's failure.",
    level: "warning",
    fields: {
      point: POINT,
      hook: HOOK,
      reason:
        "string — why: the hook's answer, a command's stderr, or `required hook \"NAME\" failed: …`",
      work_item: WORK_ITEM,
    },
  },
  "hooks.timed_out": {
    description:
      "A hook ran out of time: its answer is ignored, and its worker or process is replaced " +
      "for the next call — unless its worker thread could not be stopped (leaked): then the " +
      "hook is disabled until the-loop restarts.",
    level: "warning",
    fields: {
      point: POINT,
      hook: HOOK,
      timeout_ms: "number — the time budget it exceeded",
      leaked: "boolean — true when the hook's worker thread could not be stopped",
      stuck:
        "string — only when leaked: spinning (it busy-loops and holds a CPU core) | blocked (it waits, e.g. in Atomics.wait: no CPU, but the thread and its memory stay) | unknown (its thread's CPU time could not be read: not Linux)",
      note: "string — only when leaked: what that means, in a sentence",
      work_item: WORK_ITEM,
    },
  },
  "hooks.circuit_opened": {
    description:
      "A hook failed (or timed out) too often in a row, so its circuit opened: its calls are " +
      "skipped until retry_at — a required hook's operations are refused meanwhile — then one " +
      "probe call is let through. Written once per opening, and again only when a probe fails.",
    level: "error",
    fields: {
      hook: HOOK,
      kind: "string — module | remote | command",
      point: "string — the lifecycle point of the call that opened it",
      required: "boolean — true when its operations are refused while it is open",
      failures:
        "number — failures in a row: those that opened it (5 within 60 s by default), plus failed probes",
      last_error: "string — the last failure's first line",
      opened_at: "string — UTC ISO-8601 time it first opened",
      retry_at: "string — UTC ISO-8601 time after which one probe call is let through",
      cool_down_ms:
        "number — how long it stays open (30 s, doubling after each failed probe, at most 10 min)",
      reopened: "boolean — true when a probe failed and it opened again",
      work_item: WORK_ITEM,
    },
  },
  "hooks.circuit_closed": {
    description: "A hook's open circuit closed again: its calls go through.",
    level: "info",
    fields: {
      hook: HOOK,
      kind: "string — module | remote | command",
      point: "string — the point of the probe call that worked (absent after a reload)",
      after:
        "string — cool-down (the probe after the cool-down worked) | reset (`the-loop hooks reset` re-armed it and the probe worked) | reload (the hooks were configured again, with fresh executors)",
      opened_at: "string — UTC ISO-8601 time it had opened",
      skipped: "number — calls skipped while it was open (in this process)",
    },
  },
  "hooks.retrying": {
    description:
      "A hook declared onError: suspend with suspendMode: retry_backoff failed (or was skipped, its circuit open), so it is called again after wait_ms; the first answer that is not a failure wins, and when every retry fails the operation is suspended.",
    level: "warning",
    fields: {
      hook: HOOK,
      point: POINT,
      work_item: WORK_ITEM,
      attempt: "number — the attempt that failed, 1-based",
      wait_ms: "number — how long it waits before the next one, in milliseconds",
      error: "string — why that attempt failed (scrubbed of secret values)",
    },
  },
  "hooks.suspended": {
    description:
      "A hook declared onError: suspend failed at a point that can refuse, so the operation is parked (its record written) until it is resumed; nothing after that hook runs meanwhile.",
    level: "warning",
    fields: {
      work_item: WORK_ITEM,
      id: SUSPENSION_ID,
      point: POINT,
      hook: HOOK,
      mode:
        "string — wait_for_resume (resumed, it goes on without calling the hook again) | wait_then_retry (resumed, the hook is called once more and its answer is final)",
      declared:
        "string — the suspendMode asked for: wait_for_resume | retry_backoff (its retries ran out) | wait_then_retry",
      error: "string — the hook's last failure, its first line (scrubbed of secret values)",
      attempts: "number — calls made before parking (1 + retries)",
      held: "number — deliveries held for the work item while it is parked",
    },
  },
  "hooks.suspension_escalated": {
    description:
      "A parked operation outlived its hook's suspendTimeoutMinutes: it is escalated (a notification), never resumed on its own.",
    level: "error",
    fields: {
      work_item: WORK_ITEM,
      id: SUSPENSION_ID,
      point: POINT,
      hook: HOOK,
      since: "string — UTC ISO-8601 time it was parked",
      minutes: "number — the suspendTimeoutMinutes it outlived",
    },
  },
  "hooks.resumed": {
    description:
      "A parked operation was resumed: it goes on from the hook that parked it, and the deliveries held meanwhile are let through.",
    level: "info",
    fields: {
      work_item: WORK_ITEM,
      id: SUSPENSION_ID,
      point: POINT,
      hook: HOOK,
      mode:
        "string — wait_for_resume (the hook is not called again) | wait_then_retry (the hook is called once more; its failure refuses)",
      by: "string — who resumed it: a GitHub login, or cli",
      held: "number — held deliveries let through",
    },
  },
  "hooks.suspension_discarded": {
    description:
      "A parked operation was dropped without resuming (the work item was stopped, or closed): one record per held delivery discarded, and one for the suspension itself with held_delivery_id null.",
    level: "info",
    fields: {
      work_item: WORK_ITEM,
      id: SUSPENSION_ID,
      point: POINT,
      hook: HOOK,
      reason: "string — stop (a stop command) | close (the issue or pull request was closed)",
      held_delivery_id:
        "string | null — the discarded delivery's id; null for the suspension record",
    },
  },
  "github.rate_limited": {
    description:
      "GitHub said to slow down (or the last answer used up the rate limit): the client waits, then asks again; the request does not fail.",
    level: "warning",
    fields: {
      method: "string — the HTTP method",
      path: "string — the API path and query, relative to github.apiUrl",
      reason:
        "string — retry-after (GitHub sent Retry-After) | rate-limit-reset (X-RateLimit-Remaining: 0, waiting for X-RateLimit-Reset plus 1 s) | secondary (a secondary limit without headers: 60 s, doubling)",
      status: "number | null — the answer's status (403 or 429); null for a wait before sending",
      wait_ms: "number — how long the client waits, in milliseconds",
      until: "string — UTC ISO-8601 time the wait ends",
    },
  },
  "github.retrying": {
    description:
      "A request to GitHub failed with a 5xx or a network error; it is sent again after a jittered backoff.",
    level: "warning",
    fields: {
      method: "string — the HTTP method",
      path: "string — the API path and query, relative to github.apiUrl",
      attempt: "number — the attempt that failed (1 = the first)",
      max_attempts: "number — attempts allowed before the request fails",
      status: "number | null — the answer's status (5xx); null for a network error or timeout",
      error: "string | null — the network error (never the token); null when GitHub answered",
      wait_ms: "number — the backoff before the next attempt, in milliseconds",
    },
  },
  ...ROUTING_EVENTS,
  ...POLL_EVENTS,
  ...WEBHOOK_EVENTS,
  ...DAEMON_EVENTS,
  ...WORKSPACE_EVENTS,
  ...SESSIONS_EVENTS,
  ...DISPATCH_EVENTS,
  ...LOOPS_EVENTS,
  ...CONTROL_EVENTS,
  ...NOTIFY_EVENTS,
  ...UI_EVENTS,
};

/** Is `event` in the catalog? */
export function isCatalogued(event: string): boolean {
  return Object.hasOwn(EVENT_TYPES, event);
}

/** The default level of `event`: the catalog's, or `info` for an uncatalogued type. */
export function defaultLevel(event: string): Level {
  return isCatalogued(event) ? EVENT_TYPES[event].level : "info";
}
