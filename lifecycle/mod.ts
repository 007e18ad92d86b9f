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
 * The SDK is bundled into the sandboxed hook worker, so it imports only these relative files
 * of `lifecycle/` (keep `_sdk_sources.ts` in step when this list changes) and touches no Deno
 * API at import time:
 *
 *   mod.ts, contract.ts, _catalog.ts, _context.ts, _schema.ts, points.ts, work_item.ts,
 *   hooks.ts, serve.ts, _read_capped.ts
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
