/**
 * The field tables: for every point, each field's name, type, whether it is a decision, its
 * default and a one-line meaning. This is the ONE place a decision is marked; the context
 * interfaces (checked against it at compile time), the runtime checks, the JSON Schema and the
 * docs test all read it.
 *
 * @module
 */
import type { PointName } from "./points.ts";

/** A context field's type. */
export type FieldType = "string" | "boolean" | "string[]" | "WorkItem";

/** One field of a context. */
export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  /** A decision is read back from a hook and applied; every other field is a fact. */
  readonly decision: boolean;
  /** A decision's value when the-loop does not set one (decisions only). */
  readonly default?: string | boolean;
  /** One line: what the field means. */
  readonly doc: string;
  /**
   * A string decision's cap, in UTF-8 bytes: a longer value fails the hook (see
   * {@linkcode DECISION_MAX_BYTES}).
   */
  readonly maxBytes?: number;
}

/** One point of the catalog. */
export interface PointSpec {
  readonly name: PointName;
  /** When the point fires and what the-loop does with its decisions. */
  readonly fires: string;
  readonly fields: readonly FieldSpec[];
}

const wi = { name: "work_item", type: "WorkItem", decision: false, doc: "the work item" } as const;
const fact = <N extends string, T extends FieldType>(name: N, type: T, doc: string) =>
  ({ name, type, decision: false, doc }) as const;
const KiB = 1024;

/**
 * The cap on each string decision, in UTF-8 bytes. Over its cap a hook's answer is refused whole
 * and the call fails, naming the field, its size and the cap: a hook cannot make the-loop post,
 * log or hand a harness an unbounded text. Booleans need no cap.
 */
export const DECISION_MAX_BYTES = {
  /** Posted on the ticket with a refusal, written to the event log. */
  reason: 4 * KiB,
  /** The text a harness boots on. */
  prompt: 256 * KiB,
  /** A person's input as delivered to the session. */
  text: 256 * KiB,
  /** An agent's question as posted (a GitHub comment holds 65 536 characters at most). */
  question: 64 * KiB,
  /** The channels' one-line summary. */
  summary: 1 * KiB,
} as const;

/**
 * The cap on a hook's whole answer, serialized as JSON, in bytes: a module hook's answer is
 * measured inside its worker before it is posted to the-loop (a value referenced many times
 * counts every time), a remote hook's response body and a command hook's stdout are read no
 * further than this.
 */
export const ANSWER_MAX_BYTES = 1024 * KiB;

const decide = <N extends string, T extends "string" | "boolean", D extends string | boolean>(
  name: N,
  type: T,
  dflt: D,
  doc: string,
) => {
  const max = type === "string"
    ? (DECISION_MAX_BYTES as Record<string, number | undefined>)[name]
    : undefined;
  if (type === "string" && max === undefined) throw new Error(`decision ${name} has no size cap`);
  return { name, type, decision: true, default: dflt, doc, ...(max ? { maxBytes: max } : {}) } as
    & { readonly name: N; readonly type: T; readonly decision: true; readonly default: D }
    & { readonly doc: string; readonly maxBytes?: number };
};

const proceed = decide("proceed", "boolean", true, "false refuses the operation");
const reason = decide("reason", "string", "", "posted on the ticket with a refusal");

/** The catalog's tables, typed exactly (the context interfaces are derived-checked from it). */
export const CATALOG = {
  work_item_start: {
    name: "work_item_start",
    fires: "once per arming, when a start is accepted, before the workspace is prepared",
    fields: [
      wi,
      fact("loop", "string", 'the loop it will walk; "" if unresolved'),
      fact("command", "string", 'the arming word (start, contribute, …); "" for a label alone'),
      fact("actor", "string", "the login that armed it"),
      fact("harness", "string", "claude | cursor"),
      fact("instance", "string", 'routing.instance.name; "" when unnamed'),
      proceed,
      reason,
    ],
  },
  session_spawn: {
    name: "session_spawn",
    fires: "before every harness launch: first spawn, a pull request's session, a respawn",
    fields: [
      wi,
      fact("endpoint", "WorkItem", "the conversation launched: the item or one of its PRs"),
      fact("harness", "string", "claude | cursor"),
      fact("cwd", "string", "the checkout the session runs in"),
      fact("model", "string", 'the frozen model; "" when none was chosen'),
      fact("effort", "string", 'the frozen effort; "" when none'),
      fact("harness_args", "string[]", "the argv the launch adds"),
      fact("respawn", "boolean", "true when this replaces a session found dead"),
      fact("loop", "string", 'the loop in the work item\'s state; "" if unknown'),
      decide("prompt", "string", "", "the text the harness boots on"),
      decide("proceed", "boolean", true, "false prevents the launch"),
      reason,
    ],
  },
  session_spawned: {
    name: "session_spawned",
    fires: "after the session is registered, before it is announced",
    fields: [
      wi,
      fact("endpoint", "WorkItem", "the item itself or one of its pull requests"),
      fact("harness", "string", "claude | cursor"),
      fact("harness_session_id", "string", "the harness conversation id"),
      fact("tmux_target", "string", "the tmux session, loop-<slug>"),
      fact("cwd", "string", "the checkout the session runs in"),
      fact("model", "string", 'the frozen model; "" when none'),
      fact("effort", "string", 'the frozen effort; "" when none'),
      fact("harness_args", "string[]", "the argv the launch added"),
      fact("respawn", "boolean", "true when this replaced a dead session"),
      decide("announce", "boolean", true, "false skips the session announcement comment"),
    ],
  },
  waiting_for_input: {
    name: "waiting_for_input",
    fires: "before an agent's question is published; when a human gate node is entered",
    fields: [
      wi,
      fact("kind", "string", "question | gate"),
      fact("node", "string", 'the graph node, for a gate; "" for a question'),
      fact("actor", "string", 'who is asking, for a question; "" for a gate'),
      fact("loop", "string", "the loop the item walks"),
      decide("question", "string", "", "the text posted for a question; inert for a gate"),
      decide("summary", "string", "", "the channels' one-line summary; inert for a gate"),
    ],
  },
  input_received: {
    name: "input_received",
    fires: "when a person's input reaches the loop, before the-loop acts on it",
    fields: [
      wi,
      fact("kind", "string", "answer | comment | command"),
      fact("actor", "string", "the login that wrote it, or the verb's actor"),
      fact("source", "string", "comment (ticket or PR) | verb (CLI, API, a channel)"),
      fact("command", "string", 'the control word, for a command; "" otherwise'),
      fact("event", "string", 'the GitHub event, for a comment; "" otherwise'),
      fact("endpoint", "WorkItem", "the conversation the input lands in"),
      fact("loop", "string", "the loop the item walks"),
      decide("text", "string", "", "what is delivered; ignored for a command"),
      decide("proceed", "boolean", true, "false drops the input"),
      reason,
    ],
  },
  phase_changed: {
    name: "phase_changed",
    fires: "when the graph is entered, the phase label changes or a terminal node is reached",
    fields: [
      wi,
      fact("loop", "string", "the loop the item walks"),
      fact("from_node", "string", '"" when the graph is entered'),
      fact("to_node", "string", "the node entered"),
      fact("from_phase", "string", '"" when the graph is entered'),
      fact("to_phase", "string", "the new loop:<phase> label"),
      fact("outcome", "string", 'the outcome that routed the edge; "" at the start'),
      fact("actor", "string", "the entered node's actor: agent | human"),
      fact("terminal", "boolean", "true when the terminal node was reached"),
      decide("notify", "boolean", true, "false skips the phase publish to the channels"),
    ],
  },
  work_item_complete: {
    name: "work_item_complete",
    fires: "when the issue or pull request that is the work item closes, before it is announced",
    fields: [
      wi,
      fact("state", "string", "merged | closed"),
      fact("kind", "string", "issue | pull-request"),
      fact("reason", "string", "the dispatcher's reason (issue-closed, pr-merged, …)"),
      fact("source", "string", "webhook | poll"),
      fact("actor", "string", 'who closed it; "" when unknown'),
      fact("loop", "string", "the loop the item walked"),
      decide("announce", "boolean", true, "false skips the work-item.closed publish"),
    ],
  },
} as const satisfies { readonly [P in PointName]: PointSpec & { readonly name: P } };
