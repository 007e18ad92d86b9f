/**
 * Loops: the graphs a work item walks (`adhoc`, `pdlc`, the config's `loops:`), read strictly,
 * and the durable position of each item in its loop. `docs/loops.md` tells the whole story.
 *
 * - `builtin.ts`: {@linkcode BUILTIN_LOOPS}, the loops always there;
 * - `declaration.ts`: {@linkcode parseLoops}, the config's `loops:` read strictly;
 * - `machine.ts`: the pure state machine ({@linkcode enter}, {@linkcode advance},
 *   {@linkcode complete}, {@linkcode resume}, {@linkcode checkClaim});
 * - `verdict.ts`: a person's verdict at a gate ({@linkcode parseVerdict});
 * - `store.ts`: {@linkcode LoopStore}, the positions on disk.
 *
 * @module
 */
export type {
  Actor,
  LoopDef,
  LoopNode,
  LoopPositions,
  LoopSet,
  PhaseChange,
  Position,
  PositionStatus,
  Transition,
  TransitionKind,
} from "./types.ts";
export { BUILTIN_LOOPS, BUILTIN_NAMES } from "./builtin.ts";
export { parseLoops, type ParseLoopsOptions } from "./declaration.ts";
export {
  advance,
  checkClaim,
  type ClaimCheck,
  closedSince,
  closeFinished,
  complete,
  enter,
  LOOP_ACTOR,
  type Move,
  resume,
  soleTerminal,
} from "./machine.ts";
export { DEFAULT_GATE_KEYWORDS, gateKeyword, parseVerdict, type Verdict } from "./verdict.ts";
export {
  type CorruptPosition,
  LoopStore,
  type LoopStoreOptions,
  positionsDir,
  readPosition,
} from "./store.ts";
