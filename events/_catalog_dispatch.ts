/**
 * Catalog entries of the dispatcher's events (merged into {@linkcode EVENT_TYPES} by
 * `catalog.ts`). None carries a comment's body, a prompt or a token: comments are named by
 * delivery id, and a hook's reason is what the hook engine already scrubbed.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const ITEM = "string — the work item's ref, e.g. github:owner/repo#12";
const DELIVERY = "string — the delivery id (X-GitHub-Delivery, or the poller's poll-…)";
const HARNESS = "string — claude | cursor | codex | gemini | opencode";
const SESSION_ID = 'string — the harness\'s conversation id ("" when not known yet)';

/** The dispatcher's event types. */
export const DISPATCH_EVENTS: Record<string, EventType> = {
  "budget.exceeded": {
    description:
      "A work item crossed one of its routing.budgets (or the loop guard): its session is paused, never killed (its conversation kept), the delivery that would have gone past the limit and every later one are held in order, and one comment says which budget, the figures and how to go on (the-loop:resume-execution from an authorized person, or the-loop sessions resume REF, grants one more window).",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      id: "string — the pause's suspension id (the-loop hooks resume ID works too)",
      budget:
        "string — deliveriesPerHour | spawnsPerDay | sessionHours | costUsd | tokens | turns | loop-guard",
      used: "number — what the window used of it (US dollars for costUsd, hours for sessionHours)",
      limit: "number — the limit it reached",
      who: "string — loop-guard only: the author whose comments and reviews crossed it",
      held: "number — deliveries held (0 when a run used up a sum: later ones are held)",
    },
  },
  "budget.not_measured": {
    description:
      "A cost, tokens or turns budget is set, but the session's harness reports nothing of it (an interactive tmux session, or a harness whose output carries no figures): that budget is not measured, never silently passed. Once per session.",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      budgets: "string[] — the budgets not measured: costUsd | tokens | turns",
      harness: HARNESS,
    },
  },
  "dispatch.dropped": {
    description:
      "An event was settled without being delivered: nothing spawns or hears it, and it is not replayed.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      reason:
        "string — spawn-policy | awaiting-start | session-paused | quiet-action (routing.deliver leaves the action out)",
      kind: "string — comment | review | review_comment | item | ci | presence",
      gh_event: "string — the GitHub event name",
      actor: "string | null — who acted (null for CI)",
    },
  },
  "dispatch.repeat": {
    description:
      "A redelivery of a delivery id that was marked in flight on its session (before its paste) and never noted delivered — a crash or kill came between the two: it is delivered again, and its prompt begins by saying it may repeat a message delivered just before a restart. At most one delivery (or one gathered batch) per session per crash.",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      gh_event: "string — the GitHub event name",
    },
  },
  "dispatch.held": {
    description:
      "Its work item is suspended (a failing onError: suspend hook parked an operation): the event is appended to the suspension's record, on disk, and delivered in arrival order once the suspension is resumed (a stop or a close discards it).",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      id: "string — the suspension's id (the-loop hooks resume ID)",
      kind: "string — comment | review | review_comment | item | ci | presence",
      gh_event: "string — the GitHub event name",
      position: "number — its place among the held deliveries (1 = the operation that parked)",
    },
  },
  "hooks.suspension_corrupt": {
    description:
      "A suspension record under <state.root>/suspended/ did not read: it was renamed aside (never deleted) and its item reads as not suspended.",
    level: "warning",
    fields: {
      path: "string — the record that did not read",
      kept_as: "string — where it was kept",
      error: "string — why it did not read",
    },
  },
  "dispatch.delivered": {
    description:
      "An event's prompt was delivered into its work item's live session (prompts that gathered while an earlier delivery was under way go in together, as one batch).",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      kind: "string — comment | review | review_comment | item | ci",
      gh_event: "string — the GitHub event name",
      harness: HARNESS,
      harness_session_id: SESSION_ID,
      respawned: "boolean — the harness was gone and was relaunched on this prompt",
      batch: "number — how many events' prompts went into the session in this one harness call",
    },
  },
  "dispatch.failed": {
    description:
      "A dispatch failed at one of its steps; the router releases the delivery id when will_retry is true.",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      stage: "string — harness | workspace | spawn | register | respawn | deliver | dispatch",
      error: "string — what went wrong (a timeout names dispatchTimeoutSeconds)",
      will_retry: "boolean — whether a redelivery may succeed",
    },
  },
  "dispatch.reaction_failed": {
    description: "A reaction could not be added (best-effort: the dispatch is unaffected).",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      state: "string — started | completed | error",
      content: "string — the reaction (eyes, hooray, confused, …)",
      error: "string — what GitHub or the network said",
    },
  },
  "dispatch.comment_failed": {
    description:
      "A refusal or closure comment could not be posted (best-effort: the dispatch is unaffected).",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      purpose: "string — refusal | closure | loop (a gate's request, an escalation)",
      error: "string — what GitHub or the network said",
    },
  },
  "dispatch.hook_refused": {
    description:
      "A lifecycle hook refused what the dispatcher was about to do; one comment says so on the work item and the event is settled.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      point: "string — work_item_start | session_spawn | input_received",
      hook: "string — the refusing hook's name",
      reason: "string — the hook's reason (scrubbed by the hook engine)",
    },
  },
  "dispatch.hook_error": {
    description:
      "Asking the lifecycle hooks failed outside the engine's own handling; the dispatch went on as if no hook were declared.",
    level: "warning",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      point: "string — the lifecycle point",
      error: "string — what went wrong",
    },
  },
  "dispatch.registry_failed": {
    description: "A session's registry record could not be updated after the harness acted.",
    level: "warning",
    fields: { work_item: ITEM, delivery_id: DELIVERY, error: "string — what went wrong" },
  },
  "dispatch.cleanup_failed": {
    description: "A closed work item's checkout could not be removed; it is left where it is.",
    level: "warning",
    fields: { work_item: ITEM, delivery_id: DELIVERY, error: "string — what went wrong" },
  },
  "control.ambiguous": {
    description:
      "A comment carried two or more different control keywords: nothing was executed and nothing forwarded.",
    level: "warning",
    fields: {
      work_items: "string[] — the work items the comment concerned",
      work_item: ITEM,
      delivery_id: DELIVERY,
      actor: "string | null — the comment's author",
      commands: "string[] — the commands found (start, stop, pause, resume)",
    },
  },
  "session.spawned": {
    description: "A new harness session was launched and registered for a work item.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      harness: HARNESS,
      harness_session_id: SESSION_ID,
      runner: "string — process | tmux",
      tmux_target: 'string — loop-<slug>, or "" for the process runner',
      gh_event: "string — the GitHub event that spawned it",
      title: "string — the issue's or pull request's title when spawned (\"\" when unknown)",
    },
  },
  "session.respawned": {
    description: "A live session's harness was found gone and relaunched on the event's prompt.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      harness: HARNESS,
      harness_session_id: SESSION_ID,
      resumed: "boolean — the same conversation was resumed (false: a fresh one)",
    },
  },
  "session.resume_failed": {
    description:
      "A respawn could not resume the recorded conversation and booted a fresh one instead.",
    level: "warning",
    fields: {
      work_item: ITEM,
      harness: HARNESS,
      reason: "string — why the conversation could not be resumed",
      harness_session_id: 'string — the fresh conversation\'s id ("" for cursor)',
    },
  },
  "session.announced": {
    description: "The spawn announcement (how to attach) was posted on the work item.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      tmux_target: 'string — loop-<slug>, or "" for the process runner',
      comment_url: "string | null — the comment's html_url",
    },
  },
  "session.announce_failed": {
    description: "The spawn announcement could not be posted (best-effort: the session runs).",
    level: "warning",
    fields: { work_item: ITEM, delivery_id: DELIVERY, error: "string — what went wrong" },
  },
  "session.autoclosed": {
    description: "A work item closed, and so did its session (active or paused).",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      reason: "string — issue-closed | pr-merged | pr-closed",
      harness: HARNESS,
      previous_status: "string — active | paused",
    },
  },
  "session.kept_open": {
    description:
      "A pull request closed, but the session it reached belongs to a linked issue: it stays open.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      reason: "string — pr-merged | pr-closed",
      closed: "string | null — the pull request that closed",
    },
  },
  "session.retained": {
    description: "A closed session's tmux session is kept (keepSessionOnClose) for reading.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: DELIVERY,
      tmux_target: "string — the tmux session kept (attach read-only: tmux attach -r -t …)",
    },
  },
};
