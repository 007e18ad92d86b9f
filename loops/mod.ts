/**
 * Loops: the graphs a work item walks (`adhoc`, `pdlc`, the config's `loops:`), read strictly,
 * and the durable position of each item in its loop. `docs/loops.md` tells the whole story.
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
