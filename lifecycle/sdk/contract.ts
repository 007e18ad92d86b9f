/**
 * The lifecycle contract: the seven points' contexts, their field tables ({@linkcode POINTS}),
 * building a context ({@linkcode makeContext}), applying a hook's answer
 * ({@linkcode applyAnswer}) and the JSON Schema of it all ({@linkcode contextJsonSchema}).
 *
 * The contexts' interfaces live in `context_types.ts` (re-exported here), which both this file
 * and `_context.ts` import, so neither imports the other back.
 *
 * @module
 */
import {
  ANSWER_MAX_BYTES,
  CATALOG,
  DECISION_MAX_BYTES,
  type FieldSpec,
  type FieldType,
  type PointSpec,
} from "./_catalog.ts";
import { applyAnswer as applyTyped, type ApplyOptions } from "./_context.ts";
import type { ContextOf } from "./context_types.ts";
import type { PointName } from "./points.ts";

export type { FieldSpec, FieldType, PointSpec };
export { ANSWER_MAX_BYTES, DECISION_MAX_BYTES };
export { POINT_NAMES } from "./points.ts";
export type { PointName } from "./points.ts";
export {
  type ApplyOptions,
  ContextError,
  decisionNames,
  decisionsOf,
  DecisionTypeError,
  makeContext,
  type MakeContextOptions,
} from "./_context.ts";
export { contextJsonSchema, type JsonSchema, pointSchema } from "./_schema.ts";
export type {
  Context,
  ContextInit,
  ContextOf,
  DecisionName,
  DecisionsOf,
  FactsOf,
  InputReceived,
  PhaseChanged,
  PointContexts,
  SessionSpawn,
  SessionSpawned,
  WaitingForInput,
  WorkItemComplete,
  WorkItemStart,
} from "./context_types.ts";

/** The catalog: every point's name, when it fires, and its field table. */
export const POINTS: { readonly [P in PointName]: PointSpec } = CATALOG;

/** The bytes `s` takes as UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `n` bytes, with its KiB/MiB figure when that reads better: `4096 bytes (4 KiB)`. */
export function sizeText(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const [unit, div] = n < 1024 * 1024 ? ["KiB", 1024] : ["MiB", 1024 * 1024];
  const v = n / div;
  return `${n} bytes (${Number.isInteger(v) ? v : v.toFixed(1)} ${unit})`;
}

/**
 * Applies a hook's answer to `ctx`: copies its DECISION fields, type-checked and size-checked.
 * A fact given with the value it has in `ctx` is ignored (a hook may return the whole context it
 * was handed); a fact with another value, an unknown key, a wrongly typed decision or a string
 * decision over its cap ({@linkcode DECISION_MAX_BYTES}, UTF-8 bytes) refuses the whole answer
 * and nothing is applied. `null`/`undefined` is a pass. `answer` must not be `ctx` itself.
 *
 * @returns the names of the decisions whose value changed, in table order.
 * @throws {DecisionTypeError} naming the hook, the point and every field at fault, in one
 * message (and, over a cap, its size and the cap).
 */
export function applyAnswer<P extends PointName>(
  point: P,
  ctx: ContextOf<P>,
  answer: unknown,
  opts: ApplyOptions = {},
): string[] {
  return applyTyped(point, ctx, answer, opts, overCap);
}

/** What is wrong with a string decision over its cap, if it is. */
function overCap(f: FieldSpec, value: unknown): string | undefined {
  if (f.maxBytes === undefined || typeof value !== "string") return undefined;
  if (value.length <= f.maxBytes / 3) return undefined; // at most 3 bytes a UTF-16 unit: within
  const size = utf8Bytes(value);
  if (size <= f.maxBytes) return undefined;
  return `is ${sizeText(size)} of UTF-8, over its cap of ${sizeText(f.maxBytes)}; ` +
    "the answer is refused whole: shorten it";
}
