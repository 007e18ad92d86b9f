/**
 * The base class a hook author extends: one method per lifecycle point. Override the points you
 * care about; return nothing to pass, or the context (modified) or a plain object of decisions
 * to decide. Methods may be sync or async.
 *
 * @module
 */
import type { ContextOf, DecisionsOf } from "./contract.ts";
import type {
  InputReceived,
  PhaseChanged,
  SessionSpawn,
  SessionSpawned,
  WaitingForInput,
  WorkItemComplete,
  WorkItemStart,
} from "./contract.ts";
import { isPointName, type PointName } from "./points.ts";

/** A hook method's answer: nothing (pass), the context, or some of its decisions. */
export type HookAnswer<P extends PointName> =
  | void
  | null
  | ContextOf<P>
  | Partial<DecisionsOf<P>>;

/** What a hook method returns: its answer, or a promise of it. */
export type HookResult<P extends PointName> = HookAnswer<P> | Promise<HookAnswer<P>>;

/** Options handed to a hook class: the declaration's `with:` mapping. */
export type HookOptions = Record<string, unknown>;

/**
 * Extend this and override the points you handle. `handles(point)` tells the-loop which ones
 * you did, so the others are never called.
 *
 * ```ts
 * import { LifecycleHooks, type SessionSpawn } from "@the-loop/hooks";
 *
 * export default class Policy extends LifecycleHooks {
 *   override session_spawn(ctx: SessionSpawn) {
 *     return { prompt: ctx.prompt + "\nRun the tests before you push." };
 *   }
 * }
 * ```
 */
export class LifecycleHooks {
  /** The declaration's `with:` mapping (`{}` when none). */
  readonly options: HookOptions;

  constructor(options: HookOptions = {}) {
    this.options = options;
  }

  /** Once per arming, before the workspace is prepared. Decisions: proceed, reason. */
  work_item_start(_ctx: WorkItemStart): HookResult<"work_item_start"> {}

  /** Before every harness launch. Decisions: prompt, proceed, reason. */
  session_spawn(_ctx: SessionSpawn): HookResult<"session_spawn"> {}

  /** After the session is registered, before it is announced. Decision: announce. */
  session_spawned(_ctx: SessionSpawned): HookResult<"session_spawned"> {}

  /** Before a question is published, or when a human gate is entered. Decisions: question, summary. */
  waiting_for_input(_ctx: WaitingForInput): HookResult<"waiting_for_input"> {}

  /** A person's input reached the loop. Decisions: text, proceed, reason. */
  input_received(_ctx: InputReceived): HookResult<"input_received"> {}

  /** The graph was entered, the phase changed, or the terminal node was reached. Decision: notify. */
  phase_changed(_ctx: PhaseChanged): HookResult<"phase_changed"> {}

  /** The work item closed, before the closure is announced. Decision: announce. */
  work_item_complete(_ctx: WorkItemComplete): HookResult<"work_item_complete"> {}

  /**
   * Does this object handle `point`: does a subclass (or the instance itself) define that method,
   * rather than inheriting the base class's pass-through?
   */
  handles(point: PointName | string): boolean {
    if (!isPointName(point)) return false;
    if (typeof Object.getOwnPropertyDescriptor(this, point)?.value === "function") return true;
    for (
      let proto = Object.getPrototypeOf(this);
      proto !== null && proto !== LifecycleHooks.prototype;
      proto = Object.getPrototypeOf(proto)
    ) {
      const d = Object.getOwnPropertyDescriptor(proto, point);
      if (typeof d?.value === "function") return true;
    }
    return false;
  }
}
