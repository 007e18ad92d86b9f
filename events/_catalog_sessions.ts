/**
 * Catalog entries of the session registry and of execution control (merged into
 * {@linkcode EVENT_TYPES} by `catalog.ts`): what `sessions register|close` and the control
 * actions (a keyword in a comment, or a `sessions start|pause|resume|stop` verb) did.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const ITEM = "string — the work item's ref, e.g. github:owner/repo#12";
const COMMAND = "string — start | stop | pause | resume";
const ORIGIN =
  "string — where the command came from: comment (a keyword in a comment) | cli (a sessions verb)";
const ACTOR = "string — the login that asked (the comment's author, or the verb's --as/$USER)";
const VERB = "string — the verb's delivery id (verb-<uuid>)";
const ANSWERER = "string — who answered: the comment's author, or the reply's --actor";

/** The session and control event types. */
export const SESSIONS_EVENTS: Record<string, EventType> = {
  "session.registered": {
    description: "A session was registered for a work item (its registry file written).",
    level: "info",
    fields: {
      work_item: ITEM,
      harness: "string — claude | cursor | codex | gemini | opencode",
      harness_session_id: "string — the harness's conversation id",
      cwd: "string — the session's working directory",
      tmux_target: 'string — the tmux session (loop-<slug>), "" when headless',
      replaced: "boolean — true when --force replaced a live session of the same item",
    },
  },
  "session.closed": {
    description: "A session was closed: its registry file says closed (the file is kept).",
    level: "info",
    fields: {
      work_item: ITEM,
      harness: "string — claude | cursor | codex | gemini | opencode",
      harness_session_id: "string — the harness's conversation id",
      reason: "string — cli (sessions close) | stop (a stop command) | the caller's reason",
    },
  },
  "session.harness_end_failed": {
    description:
      "Ending a closed session's harness failed (a stop, or the work item's closure); the session is closed anyway.",
    level: "warning",
    fields: {
      work_item: ITEM,
      tmux_target: 'string — the tmux session, "" when headless',
      error: "string — what went wrong",
    },
  },
  "control.applied": {
    description: "An execution-control command was applied and recorded.",
    level: "info",
    fields: {
      work_item: ITEM,
      command: COMMAND,
      origin: ORIGIN,
      actor: ACTOR,
      session_status:
        'string — the session\'s status after the command: active | paused | closed | "" when none',
    },
  },
  "control.noop": {
    description:
      "A start on a work item whose session already runs: nothing to do, nothing recorded.",
    level: "info",
    fields: { work_item: ITEM, command: COMMAND, origin: ORIGIN, actor: ACTOR },
  },
  "control.rejected": {
    description:
      "An execution-control command was refused (no-session: a pause with no session, which is still recorded; nothing-to-resume; input-refused: an input_received hook said no).",
    level: "warning",
    fields: {
      work_item: ITEM,
      command: COMMAND,
      reason: "string — no-session | nothing-to-resume | input-refused | …",
      origin: ORIGIN,
      actor: ACTOR,
      recorded: "boolean — whether the command was recorded anyway (a pause with no session is)",
      detail: "string — the refusing hook's reason (input-refused only; absent otherwise)",
    },
  },
  "control.announced": {
    description: "A CLI control verb posted its keyword as a marked comment on the work item.",
    level: "info",
    fields: {
      work_item: ITEM,
      command: COMMAND,
      actor: ACTOR,
      comment_url: "string — the posted comment's html_url",
    },
  },
  "control.announce_failed": {
    description:
      "A CLI control verb could not post its paper-trail comment (no token, GitHub failed); the local action stands.",
    level: "warning",
    fields: {
      work_item: ITEM,
      command: COMMAND,
      actor: ACTOR,
      error: "string — what went wrong (never the token)",
    },
  },
  // ask and reply: the agent's question, and the answer to it
  "session.awaiting_input": {
    description:
      "The agent asked a question (`the-loop ask`): the wait is recorded on its session and the question posted in one marked comment (warning: the post failed; the wait stands).",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: VERB,
      question: "string — the question as posted (after the waiting_for_input hooks), one line",
      summary: 'string — its one-line summary, "" when none',
      comment_posted: "boolean — whether the question comment was posted",
      comment_url: "string | null — the question comment's html_url; null when not posted",
      error: "string — why the post failed (only when comment_posted is false)",
    },
  },
  "session.answered": {
    description:
      "The agent's open question was answered: the answer was delivered into its session (framed as the answer) and the wait closed.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id:
        "string — the answering comment's delivery id, or the verb's verb-<uuid> for the-loop reply",
      from: "string — comment (a comment on the item) | verb (the-loop reply)",
      actor: ANSWERER,
    },
  },
  "session.reply_sent": {
    description:
      "`the-loop reply` delivered a reply into a session that had no open question (framed `Reply from @…`).",
    level: "info",
    fields: { work_item: ITEM, delivery_id: VERB, actor: ANSWERER },
  },
  "session.reply_refused": {
    description:
      "An input_received hook refused a `the-loop reply`: nothing was delivered and the verb exited 1 with the hook's reason.",
    level: "info",
    fields: {
      work_item: ITEM,
      delivery_id: VERB,
      actor: ANSWERER,
      hook: "string — the refusing hook's name",
      reason: "string — the hook's reason (scrubbed by the hook engine)",
    },
  },
};
