/**
 * The JSON Schema (draft 2020-12) of the contexts, read off the field tables. A decision
 * property carries `"x-decision": true` and its `default`; a fact carries `"x-decision": false`
 * and `readOnly: true`.
 *
 * @module
 */
import { CATALOG, type FieldSpec } from "./_catalog.ts";
import { POINT_NAMES, type PointName } from "./points.ts";
import { WORK_ITEM_FIELDS } from "./work_item.ts";

/** A JSON Schema document (plain JSON). */
export type JsonSchema = Record<string, unknown>;

const DRAFT = "https://json-schema.org/draft/2020-12/schema";

function workItemSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of WORK_ITEM_FIELDS) {
    properties[f.name] = f.type === "number"
      ? { type: "integer", minimum: 0, description: f.doc }
      : { type: "string", description: f.doc };
  }
  (properties.kind as JsonSchema).enum = ["issue", "pull-request", ""];
  return {
    title: "WorkItem",
    type: "object",
    properties,
    required: WORK_ITEM_FIELDS.map((f) => f.name),
    additionalProperties: false,
  };
}

function fieldSchema(f: FieldSpec): JsonSchema {
  const base: JsonSchema = f.type === "WorkItem"
    ? { $ref: "#/$defs/WorkItem" }
    : f.type === "string[]"
    ? { type: "array", items: { type: "string" } }
    : { type: f.type };
  base.description = f.doc;
  base["x-decision"] = f.decision;
  if (f.decision) base.default = f.default;
  else base.readOnly = true;
  return base;
}

function contextSchema(point: PointName): JsonSchema {
  const spec = CATALOG[point];
  return {
    title: point,
    description: spec.fires,
    type: "object",
    properties: Object.fromEntries(spec.fields.map((f) => [f.name, fieldSchema(f)])),
    required: spec.fields.map((f) => f.name),
    additionalProperties: false,
  };
}

/** The schema of `point`'s context as the-loop sends it (a standalone document). */
export function pointSchema(point: PointName): JsonSchema {
  return { $schema: DRAFT, ...contextSchema(point), $defs: { WorkItem: workItemSchema() } };
}

/**
 * One document with every context under `$defs` (by point name, plus `WorkItem`); the document
 * itself validates the `{"point": …, "context": …}` envelope a command hook reads on stdin.
 */
export function contextJsonSchema(): JsonSchema {
  const defs: Record<string, JsonSchema> = { WorkItem: workItemSchema() };
  for (const p of POINT_NAMES) defs[p] = contextSchema(p);
  return {
    $schema: DRAFT,
    title: "the-loop lifecycle hook call",
    type: "object",
    properties: { point: { enum: [...POINT_NAMES] }, context: { type: "object" } },
    required: ["point", "context"],
    additionalProperties: false,
    oneOf: POINT_NAMES.map((p) => ({
      properties: { point: { const: p }, context: { $ref: `#/$defs/${p}` } },
    })),
    $defs: defs,
  };
}
