/**
 * The hook-author SDK, imported as `@the-loop/hooks`:
 *
 * ```ts
 * import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
 *
 * export default class Roster extends LifecycleHooks {
 *   override work_item_start(ctx: WorkItemStart) {
 *     if (ctx.actor === "mallory") return { proceed: false, reason: "not on the roster" };
 *   }
 * }
 * ```
 *
 * The SDK is bundled into every sandboxed hook's worker, so it is a floor of its own: it imports
 * only files of `lifecycle/sdk/` (never the engine) and touches no Deno API at import time. The
 * list of its files exists once, in `sources.ts`, which embeds them.
 *
 * @module
 */
export {
  type HookAnswer,
  type HookMeta,
  type HookOptions,
  type HookResult,
  LifecycleHooks,
} from "./hooks.ts";
export {
  applyAnswer,
  type ApplyOptions,
  type Context,
  ContextError,
  type ContextInit,
  contextJsonSchema,
  type ContextOf,
  type DecisionName,
  decisionNames,
  type DecisionsOf,
  decisionsOf,
  DecisionTypeError,
  type FactsOf,
  type FieldSpec,
  type FieldType,
  type InputReceived,
  type JsonSchema,
  makeContext,
  type MakeContextOptions,
  type PhaseChanged,
  type PointContexts,
  POINTS,
  pointSchema,
  type PointSpec,
  type SessionSpawn,
  type SessionSpawned,
  type WaitingForInput,
  type WorkItemComplete,
  type WorkItemStart,
} from "./contract.ts";
export { isPointName, POINT_NAMES, type PointName } from "./points.ts";
export {
  toWorkItem,
  WORK_ITEM_FIELDS,
  type WorkItem,
  WorkItemError,
  type WorkItemFieldSpec,
  workItemFromRef,
  type WorkItemKind,
  type WorkItemOptions,
} from "./work_item.ts";
export { handleRequest, RPC_ERRORS, serveHooks, type ServeHooksOptions } from "./serve.ts";
