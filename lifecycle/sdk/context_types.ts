/**
 * The seven points' context types. A context's facts are `readonly`; its decisions are the
 * writable fields. The interfaces are checked at compile time against the field tables in
 * `_catalog.ts`, the one place a decision is marked.
 *
 * @module
 */
import type { CATALOG, FieldType } from "./_catalog.ts";
import type { PointName } from "./points.ts";
import type { WorkItem } from "./work_item.ts";

/** `work_item_start`: once per arming, before the workspace is prepared. */
export interface WorkItemStart {
  readonly work_item: WorkItem;
  /** The loop it will walk; `""` if unresolved. */
  readonly loop: string;
  /** The arming word (start, contribute, do, review, …); `""` for a label alone. */
  readonly command: string;
  /** The login that armed it. */
  readonly actor: string;
  /** `claude` | `cursor`. */
  readonly harness: string;
  /** `routing.instance.name`; `""` when unnamed. */
  readonly instance: string;
  /** Decision (default `true`): `false` refuses the start. */
  proceed: boolean;
  /** Decision (default `""`): posted on the ticket with a refusal. */
  reason: string;
}

/** `session_spawn`: before every harness launch (first spawn, a PR's session, a respawn). */
export interface SessionSpawn {
  readonly work_item: WorkItem;
  /** The conversation launched: the work item itself, or one of its pull requests. */
  readonly endpoint: WorkItem;
  readonly harness: string;
  readonly cwd: string;
  readonly model: string;
  readonly effort: string;
  readonly harness_args: string[];
  /** True when this replaces a session found dead. */
  readonly respawn: boolean;
  readonly loop: string;
  /** Decision: the text the harness boots on. */
  prompt: string;
  /** Decision (default `true`): `false` prevents the launch. */
  proceed: boolean;
  /** Decision: posted on the ticket with a refusal. */
  reason: string;
}

/** `session_spawned`: after the session is registered, before the announcement. */
export interface SessionSpawned {
  readonly work_item: WorkItem;
  readonly endpoint: WorkItem;
  readonly harness: string;
  readonly harness_session_id: string;
  readonly tmux_target: string;
  readonly cwd: string;
  readonly model: string;
  readonly effort: string;
  readonly harness_args: string[];
  readonly respawn: boolean;
  /** Decision (default `true`): `false` skips the announcement comment. */
  announce: boolean;
}

/** `waiting_for_input`: an agent's question about to be published, or a human gate entered. */
export interface WaitingForInput {
  readonly work_item: WorkItem;
  /** `question` | `gate`. */
  readonly kind: string;
  readonly node: string;
  readonly actor: string;
  readonly loop: string;
  /** Decision: the question text posted (inert for a gate). */
  question: string;
  /** Decision: the channels' one-line summary (inert for a gate). */
  summary: string;
}

/** `input_received`: a person's input reached the loop; the-loop has not acted on it yet. */
export interface InputReceived {
  readonly work_item: WorkItem;
  /** `answer` | `comment` | `command`. */
  readonly kind: string;
  readonly actor: string;
  /** `comment` | `verb`. */
  readonly source: string;
  readonly command: string;
  readonly event: string;
  readonly endpoint: WorkItem;
  readonly loop: string;
  /** Decision: what is delivered (ignored for a command). */
  text: string;
  /** Decision (default `true`): `false` drops the input. */
  proceed: boolean;
  /** Decision: posted on the ticket with a refusal. */
  reason: string;
}

/** `phase_changed`: the graph was entered, the phase changed, or a terminal node was reached. */
export interface PhaseChanged {
  readonly work_item: WorkItem;
  readonly loop: string;
  readonly from_node: string;
  readonly to_node: string;
  readonly from_phase: string;
  readonly to_phase: string;
  readonly outcome: string;
  readonly actor: string;
  readonly terminal: boolean;
  /** Decision (default `true`): `false` skips the phase publish to the channels. */
  notify: boolean;
}

/** `work_item_complete`: the work item closed (merged or closed), before it is announced. */
export interface WorkItemComplete {
  readonly work_item: WorkItem;
  /** `merged` | `closed`. */
  readonly state: string;
  /** `issue` | `pull-request`. */
  readonly kind: string;
  readonly reason: string;
  /** `webhook` | `poll`. */
  readonly source: string;
  readonly actor: string;
  readonly loop: string;
  /** Decision (default `true`): `false` skips the work-item.closed publish. */
  announce: boolean;
}

/** Each point's context type. */
export interface PointContexts {
  work_item_start: WorkItemStart;
  session_spawn: SessionSpawn;
  session_spawned: SessionSpawned;
  waiting_for_input: WaitingForInput;
  input_received: InputReceived;
  phase_changed: PhaseChanged;
  work_item_complete: WorkItemComplete;
}

/** The context of point `P`. */
export type ContextOf<P extends PointName> = PointContexts[P];
/** Any point's context. */
export type Context = PointContexts[PointName];
/** The names of point `P`'s decision fields. */
export type DecisionName<P extends PointName> = Extract<Field<P>, { decision: true }>["name"];
/** Point `P`'s decisions. */
export type DecisionsOf<P extends PointName> = Pick<
  ContextOf<P>,
  DecisionName<P> & keyof ContextOf<P>
>;
/** Point `P`'s facts. */
export type FactsOf<P extends PointName> = Omit<ContextOf<P>, DecisionName<P>>;
/** What {@linkcode makeContext} takes: every fact, and optionally the decisions' starting values. */
export type ContextInit<P extends PointName> = FactsOf<P> & Partial<DecisionsOf<P>>;

// ---- compile-time parity: each interface is exactly its field table ----
type Field<P extends PointName> = (typeof CATALOG)[P]["fields"][number];
type TypeOf<T extends FieldType> = T extends "string" ? string
  : T extends "boolean" ? boolean
  : T extends "string[]" ? string[]
  : WorkItem;
type Derived<P extends PointName> = { [F in Field<P> as F["name"]]: TypeOf<F["type"]> };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type IfEquals<X, Y, A, B> = (<T>() => T extends X ? 1 : 2) extends (<T>() => T extends Y ? 1 : 2)
  ? A
  : B;
type WritableKeys<T> = {
  [K in keyof T]-?: IfEquals<{ [Q in K]: T[K] }, { -readonly [Q in K]: T[K] }, K, never>;
}[keyof T];
type Parity<P extends PointName> = IfEquals<Mutable<ContextOf<P>>, Derived<P>, true, false>;
type DecisionParity<P extends PointName> = IfEquals<
  WritableKeys<ContextOf<P>>,
  DecisionName<P>,
  true,
  false
>;
/** Fails to compile when an interface above and its field table disagree. */
// deno-lint-ignore no-unused-vars
const parity: { [P in PointName]: [Parity<P>, DecisionParity<P>] } = {
  work_item_start: [true, true],
  session_spawn: [true, true],
  session_spawned: [true, true],
  waiting_for_input: [true, true],
  input_received: [true, true],
  phase_changed: [true, true],
  work_item_complete: [true, true],
};
