/**
 * Catalog entries of the poll events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`). None
 * of them ever carries a comment's body: comments are named by node id and URL.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const ITEM = "string — the work item's ref, e.g. github:owner/repo#12";
const COMMENT = "string — the comment's GraphQL node id (IC_…, PRR_…, PRRC_…)";
const COMMENT_URL = "string — the comment's html_url";

/** The poll event types. */
export const POLL_EVENTS: Record<string, EventType> = {
  "poll.started": {
    description: "The poller took its lock and is about to run its first cycle.",
    level: "info",
    fields: {
      interval_seconds: "number — seconds between cycles",
      sources: "number — how many polling.sources entries are configured",
      repos: "string[] — the repositories polled (OWNER/REPO)",
      state_file: "string — the ledger file",
      once: "boolean — true for --once (one cycle, then exit)",
    },
  },
  "poll.stopped": {
    description: "The poller finished its last cycle and let go of its lock.",
    level: "info",
    fields: {
      reason: "string — once | signal | error",
      cycles: "number — cycles run by this process",
    },
  },
  "poll.cycle": {
    description:
      "One poll cycle finished: what it saw, what it handed over and what it cost in GitHub requests.",
    level: "info",
    fields: {
      items_seen: "number — labelled open items listed",
      spawns: "number — presence events handed over (spawns asked)",
      comments_forwarded:
        "number — comments, reviews and inline comments handed over and delivered",
      closures: "number — sessions closed because their item closed or merged",
      failures: "number — deliveries that failed this cycle (comments and spawns)",
      errors: "number — provider errors (listings or reads that failed)",
      interrupted: "boolean — a stop request ended the cycle between two items",
      complete: "boolean — every listing answered (closures are reconciled only then)",
      requests: "number — HTTP requests made to GitHub this cycle, retries included",
      not_modified: "number — of those, answered 304 Not Modified (free of rate limit)",
      rate_limit_remaining: "number — the last X-RateLimit-Remaining seen (absent when none)",
      duration_ms: "number — the cycle's wall time in milliseconds",
    },
  },
  "poll.comment_failed": {
    description:
      "A comment's delivery failed; it is retried next cycle, or given up on after polling.maxRetries.",
    level: "warning",
    fields: {
      work_item: ITEM,
      comment: COMMENT,
      url: COMMENT_URL,
      reason: "string — why the dispatcher failed it",
      attempt: "number — attempts spent so far",
      will_retry: "boolean — false when this was the last attempt (logged at error level)",
    },
  },
  "poll.comment_settled": {
    description:
      "The dispatcher decided a comment without delivering it (awaiting-start, session-paused, …); it is never retried.",
    level: "info",
    fields: {
      work_item: ITEM,
      comment: COMMENT,
      outcome: "string — the dispatcher's reason, e.g. awaiting-start",
    },
  },
  "poll.rearmed": {
    description:
      "Comments another version of the-loop gave up on are tried once more by this version.",
    level: "info",
    fields: {
      work_item: ITEM,
      comments: "string[] — the node ids re-armed",
      gave_up_version: "string — the version that gave up on them",
    },
  },
  "poll.attempts_released": {
    description:
      "Deliveries abandoned because the poller is stopping gave their attempt back; the next start retries them with a full budget.",
    level: "info",
    fields: {
      work_item: ITEM,
      comments: "string[] — the node ids released",
    },
  },
  "poll.redelivering": {
    description:
      "A delivery that was in flight when a previous poller died is handed over again (at-least-once).",
    level: "warning",
    fields: {
      work_item: ITEM,
      comment: COMMENT,
    },
  },
  "poll.spawn_failed": {
    description:
      "Presence events for an armed item without a session kept failing; the poller stops asking until a new comment or start re-arms it.",
    level: "error",
    fields: {
      work_item: ITEM,
      attempts: "number — presence attempts spent",
      reason: "string — the last failure's reason",
    },
  },
  "poll.unauthorized": {
    description:
      "A labelled item was opened by a login outside routing.authorizedUsers: the poller never starts it on its own (an authorized start still does).",
    level: "warning",
    fields: {
      work_item: ITEM,
      actor: "string — the item's author",
    },
  },
  "poll.closure_detected": {
    description:
      "An item with a live session dropped out of a complete listing and GitHub says it is closed or merged; its session is closed.",
    level: "info",
    fields: {
      work_item: ITEM,
      state: "string — closed | merged",
      kind: "string — issue | pull_request",
    },
  },
  "poll.provider_error": {
    description:
      "A listing or a read failed; the cycle goes on without it (and reconciles no closure) and the next cycle tries again.",
    level: "error",
    fields: {
      repo: "string — OWNER/REPO",
      work_item: "string | null — the item being read, or null for a listing",
      operation: "string — list | thread | closure",
      error: "string — what failed (never the token)",
      will_retry: "boolean — always true: the next cycle tries again",
    },
  },
  "poll.notice_failed": {
    description: "The give-up notice could not be posted on the item.",
    level: "warning",
    fields: {
      work_item: ITEM,
      comment: COMMENT,
      error: "string — what failed",
    },
  },
  "poll.misconfigured": {
    description: "The polling config cannot poll anything (no source, or a source with no repos).",
    level: "warning",
    fields: {
      problem: "string — what is wrong and how to fix it",
    },
  },
  "poller.blocked": {
    description: "A second poller was refused: another process holds the lock on the pidfile.",
    level: "error",
    fields: {
      pidfile: "string — the pidfile whose lock is held",
      holder_pid: "number | null — the holder's pid as the pidfile says",
    },
  },
};
