/**
 * What a loop is and where a work item stands in one: the declared graph ({@linkcode LoopDef},
 * its nodes {@linkcode LoopNode}), the set the daemon runs with ({@linkcode LoopSet}, the
 * built-ins and the config's `loops:`), and the durable position of one work item
 * ({@linkcode Position}, `<state.root>/loops/<slug>.json`) with its history of
 * {@linkcode Transition}s. A phase change ({@linkcode PhaseChange}) is what `phase_changed` is
 * told.
 *
 * @module
 */

/** Who finishes a node: the agent (`the-loop advance`) or a person (a keyword comment). */
export type Actor = "agent" | "human";

/** One node of a loop, defaults filled. */
export interface LoopNode {
  id: string;
  /** The phase name (the item's `loop:<phase>` label while it is here), without the prefix. */
  phase: string;
  /** `agent` or `human`; absent on a terminal node. */
  actor?: Actor;
  /** Outcome → the node it leads to (outcome keys are strings, whatever YAML would make of them). */
  next: Record<string, string>;
  /** What the agent is told on entering an agent node; `""` when none is declared. */
  prompt: string;
  terminal: boolean;
  /** How many times the node may be entered before the item is escalated (default 3). */
  maxAttempts: number;
}

/** One loop, as read strictly. */
export interface LoopDef {
  name: string;
  start: string;
  /** The nodes in declaration order, by id. */
  nodes: Record<string, LoopNode>;
  /** Built into the-loop (`adhoc`, `pdlc`) rather than declared under `loops:`. */
  builtin: boolean;
}

/** The loops a daemon knows, by name: the built-ins and the config's. */
export type LoopSet = ReadonlyMap<string, LoopDef>;

/** What moved a position. */
export type TransitionKind =
  /** The item entered its loop's start node (at a spawn). */
  | "enter"
  /** The agent's `the-loop advance` claim. */
  | "agent"
  /** A person's keyword comment resolved a gate. */
  | "gate"
  /** The item closed: its loop completed wherever it was. */
  | "close"
  /** The same agent node entered more than `maxAttempts` times: parked. */
  | "escalate"
  /** A person resumed an escalated item: the node's attempts start over. */
  | "resume";

/** One move of a position, appended to its history. */
export interface Transition {
  at: string;
  kind: TransitionKind;
  /** `""` for the entry into the start node. */
  from: string;
  to: string;
  /** The outcome that routed the edge; `""` for an entry, a close or an escalation. */
  outcome: string;
  /** Who: a GitHub login (a gate, a close), `agent` (a claim), `the-loop` (entry, escalation). */
  by: string;
}

/** Where a work item stands: `active` (moving), `escalated` (parked), `completed` (terminal). */
export type PositionStatus = "active" | "escalated" | "completed";

/** The durable position of one work item in its loop (`<state.root>/loops/<slug>.json`). */
export interface Position {
  version: 1;
  /** The work item's ref (`github:owner/repo#N`). */
  workItem: string;
  /** The loop's name, frozen at entry. */
  loop: string;
  /** The current node's id. */
  node: string;
  /** The current node's phase. */
  phase: string;
  status: PositionStatus;
  /** How many times each node was entered. */
  attempts: Record<string, number>;
  /** When the item began waiting at a human node; `null` elsewhere. */
  waitingSince: string | null;
  history: Transition[];
  updatedAt: string;
  /**
   * The phase whose `loop:<phase>` label the-loop last put on the item (absent: none yet). It
   * lags `phase` when a `phase_changed` hook said `notify: false`, so the next publish removes
   * the label the item really carries.
   */
  published?: string;
  /**
   * What the agent was not told because the move that carried it also parked the item (the
   * verdict that sent it back to a node entered too often), as the prompt says it: told with
   * the node's assignment when the item is resumed (or its session spawned again), then cleared.
   */
  held?: string;
  /**
   * Set when a move (a claim, a verdict) reached a terminal node while the item stays open: the
   * walk is done, and a later spawn does not begin it again. The item's close clears it (a
   * reopened item then begins a new walk); a completed position without it was closed.
   */
  finished?: true;
}

/** What `phase_changed` is told about a move (phase names without the label prefix). */
export interface PhaseChange {
  loop: string;
  /** `""` when the loop is entered. */
  fromNode: string;
  toNode: string;
  /** `""` when the loop is entered. */
  fromPhase: string;
  toPhase: string;
  /** `""` at the start. */
  outcome: string;
  /** The entered node's actor (`""` for a terminal node). */
  actor: Actor | "";
  terminal: boolean;
}

/** Reads and writes positions (`LoopStore` of `store.ts` is one). */
export interface LoopPositions {
  /** The item's position; `undefined` when it never entered a loop (or its file was corrupt). */
  get(ref: string): Promise<Position | undefined>;
  /** Writes the position atomically (before any side effect of the move). */
  put(position: Position): Promise<void>;
}
