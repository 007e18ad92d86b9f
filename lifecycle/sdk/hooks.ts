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

/** What the-loop tells a hook about itself when it constructs it. */
export interface HookMeta {
  /** The declaration's `name:`. */
  name: string;
  /** The config file's directory ("" when unknown, e.g. a hook constructed by hand). */
  configDir: string;
}

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
  /** Who the-loop loaded this hook as: its `name:` and the config file's directory. */
  readonly meta: HookMeta;

  constructor(options: HookOptions = {}, meta: Partial<HookMeta> = {}) {
    this.options = options;
    this.meta = { name: meta.name ?? "", configDir: meta.configDir ?? "" };
  }

  /**
   * Resolves `path` the way the-loop resolves the paths in its config: an absolute path stays,
   * a relative one is taken from the config file's directory — so `with: {roster: ./roster.txt}`
   * names the same file as `permissions: {read: [./roster.txt]}`.
   */
  resolvePath(path: string): string {
    if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || !this.meta.configDir) return path;
    const base = this.meta.configDir.replace(/[\\/]+$/, "");
    const parts = `${base}/${path}`.split("/");
    const out: string[] = [];
    for (const p of parts) {
      if (p === "..") out.length > 1 ? out.pop() : null;
      else if (p !== "." && (p !== "" || out.length === 0)) out.push(p);
    }
    return out.join("/");
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
