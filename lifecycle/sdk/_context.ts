/**
 * Building a context from facts and applying a hook's answer to it, both type-checked against
 * the field tables.
 *
 * @module
 */
import { CATALOG, type FieldSpec, type FieldType } from "./_catalog.ts";
import type { ContextInit, ContextOf, DecisionsOf } from "./context_types.ts";
import { isPointName, POINT_NAMES, type PointName } from "./points.ts";
import { show, toWorkItem, WorkItemError } from "./work_item.ts";

/** A context could not be built: a fact is missing, of the wrong type, or unknown. */
export class ContextError extends TypeError {
  override name = "ContextError";
  /** The field at fault (`""` when the whole input is). */
  readonly field: string;
  constructor(message: string, opts: { field?: string } = {}) {
    super(message);
    this.field = opts.field ?? "";
  }
}

/** A hook's answer was refused: it set a fact, an unknown key, or a decision of the wrong type. */
export class DecisionTypeError extends TypeError {
  override name = "DecisionTypeError";
  readonly hook: string;
  readonly point: string;
  /** The field at fault (`""` when the whole answer is). */
  readonly field: string;
  constructor(message: string, opts: { hook: string; point: string; field: string }) {
    super(message);
    this.hook = opts.hook;
    this.point = opts.point;
    this.field = opts.field;
  }
}

function fields(point: PointName): readonly FieldSpec[] {
  if (!isPointName(point)) {
    throw new ContextError(
      `unknown lifecycle point ${show(point)} (points: ${POINT_NAMES.join(", ")})`,
    );
  }
  return CATALOG[point].fields;
}

/** The names of `point`'s decision fields, in table order. */
export function decisionNames(point: PointName): string[] {
  return fields(point).filter((f) => f.decision).map((f) => f.name);
}

/** The decision fields of `ctx`, copied (what a hook server answers with). */
export function decisionsOf<P extends PointName>(point: P, ctx: ContextOf<P>): DecisionsOf<P> {
  const c = ctx as unknown as Record<string, unknown>;
  return Object.fromEntries(decisionNames(point).map((n) => [n, c[n]])) as DecisionsOf<P>;
}

const WANT: Record<Exclude<FieldType, "WorkItem">, string> = {
  string: "a string",
  boolean: "a boolean",
  "string[]": "an array of strings",
};

/** `null` when `value` has `type`; otherwise what it must be and what it was. */
function typeProblem(type: Exclude<FieldType, "WorkItem">, value: unknown): string | null {
  const ok = type === "string[]"
    ? Array.isArray(value) && value.every((x) => typeof x === "string")
    : type === "boolean"
    ? typeof value === "boolean"
    : typeof value === "string";
  return ok ? null : `must be ${WANT[type]} (got ${show(value)})`;
}

/** Options for {@linkcode makeContext}. */
export interface MakeContextOptions {
  /** What to do with a key that is no field of the point: `"error"` (default) or `"ignore"`. */
  unknownKeys?: "error" | "ignore";
}

/**
 * Builds `point`'s context: every fact must be given with its type (a WorkItem field also takes
 * a bare ref string); decisions not given get their defaults. The result is a fresh object in
 * field-table order.
 *
 * @throws {ContextError} naming the field that is missing, mistyped or unknown.
 */
export function makeContext<P extends PointName>(
  point: P,
  facts: ContextInit<P>,
  opts: MakeContextOptions = {},
): ContextOf<P> {
  const specs = fields(point);
  const given = facts as unknown;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new ContextError(`${point}: the context must be an object (got ${show(given)})`);
  }
  const input = given as Record<string, unknown>;
  if ((opts.unknownKeys ?? "error") === "error") {
    const known = new Set(specs.map((f) => f.name));
    const extra = Object.keys(input).find((k) => !known.has(k));
    if (extra !== undefined) {
      throw new ContextError(`${point}: "${extra}" is not a field of ${point}`, { field: extra });
    }
  }
  const out: Record<string, unknown> = {};
  for (const f of specs) {
    const v = input[f.name];
    if (v === undefined) {
      if (!f.decision) {
        throw new ContextError(`${point}: fact "${f.name}" is missing`, { field: f.name });
      }
      out[f.name] = f.default;
      continue;
    }
    if (f.type === "WorkItem") {
      try {
        out[f.name] = toWorkItem(v);
      } catch (e) {
        if (!(e instanceof WorkItemError)) throw e;
        throw new ContextError(`${point}: "${f.name}": ${e.message}`, { field: f.name });
      }
      continue;
    }
    const problem = typeProblem(f.type, v);
    if (problem) throw new ContextError(`${point}: "${f.name}" ${problem}`, { field: f.name });
    out[f.name] = Array.isArray(v) ? [...v] : v;
  }
  return out as unknown as ContextOf<P>;
}

/** Options for {@linkcode applyAnswer}. */
export interface ApplyOptions {
  /** The hook's name, for the error message. */
  hook?: string;
}

/**
 * Applies a hook's answer to `ctx`: copies its DECISION fields, type-checked. A fact given with
 * the value it has in `ctx` is ignored (a hook may return the whole context it was handed); a
 * fact with another value, an unknown key or a wrongly typed decision refuses the whole answer
 * and nothing is applied. `null`/`undefined` is a pass. `answer` must not be `ctx` itself.
 * `extraCheck` adds a check of each decision's value (a cap); it returns what is wrong.
 *
 * @returns the names of the decisions whose value changed, in table order.
 * @throws {DecisionTypeError} naming the hook, the point and every field at fault (its
 * `field` is the first).
 */
export function applyAnswer<P extends PointName>(
  point: P,
  ctx: ContextOf<P>,
  answer: unknown,
  opts: ApplyOptions = {},
  extraCheck?: (field: FieldSpec, value: unknown) => string | undefined,
): string[] {
  const specs = fields(point);
  if (answer === null || answer === undefined) return [];
  const who = opts.hook === undefined ? "a hook" : `hook ${JSON.stringify(opts.hook)}`;
  const decisions = specs.filter((f) => f.decision).map((f) => f.name).join(", ");
  // every bad field is named, in one error: the first problem reads as it always has, the
  // others follow it on the same line
  const problems: [field: string, what: string][] = [];
  const refuseAll = (): never => {
    throw new DecisionTypeError(`${who} at ${point}: ${problems.map((p) => p[1]).join("; ")}`, {
      hook: opts.hook ?? "",
      point,
      field: problems[0][0],
    });
  };
  if (typeof answer !== "object" || Array.isArray(answer)) {
    problems.push([
      "",
      `the answer must be an object of decisions or nothing (got ${show(answer)})`,
    ]);
    refuseAll();
  }
  const current = ctx as unknown as Record<string, unknown>;
  const byName = new Map(specs.map((f) => [f.name, f]));
  const staged = new Map<string, unknown>();
  for (const [key, value] of Object.entries(answer as Record<string, unknown>)) {
    const f = byName.get(key);
    if (!f) problems.push([key, `"${key}" is not a field of ${point} (decisions: ${decisions})`]);
    else if (!f.decision) {
      if (!sameValue(value, current[key])) {
        problems.push([key, `"${key}" is a fact, not a decision (decisions: ${decisions})`]);
      }
    } else if (value !== undefined) {
      const problem = typeProblem(f.type as Exclude<FieldType, "WorkItem">, value) ??
        extraCheck?.(f, value);
      if (problem) problems.push([key, `decision "${key}" ${problem}`]);
      staged.set(key, value);
    }
  }
  if (problems.length > 0) refuseAll();
  const changed: string[] = [];
  for (const f of specs) {
    if (!staged.has(f.name)) continue;
    const value = staged.get(f.name);
    if (!sameValue(value, current[f.name])) changed.push(f.name);
    current[f.name] = value;
  }
  return changed;
}

/** Structural equality over JSON values (what facts are made of). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>, rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && sameValue(ra[k], rb[k]));
}
