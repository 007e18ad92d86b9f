import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { contextJsonSchema, makeContext, POINT_NAMES, POINTS, pointSchema } from "./contract.ts";
import { workItemFromRef } from "./work_item.ts";

function ajv() {
  const a = new Ajv2020({ strict: true, allErrors: true });
  a.addKeyword({ keyword: "x-decision", schemaType: "boolean" });
  return a;
}

const item = workItemFromRef("github:acme/app#42", { kind: "issue" });
const start = makeContext("work_item_start", {
  work_item: item,
  loop: "pdlc-work-item-loop",
  command: "start",
  actor: "mallory",
  harness: "claude",
  instance: "",
});

Deno.test("each point's schema marks its decisions, with defaults, and its facts readOnly", () => {
  for (const p of POINT_NAMES) {
    const s = pointSchema(p);
    assert.equal(s.$schema, "https://json-schema.org/draft/2020-12/schema");
    const props = s.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(props), POINTS[p].fields.map((f) => f.name));
    for (const f of POINTS[p].fields) {
      assert.equal(props[f.name]["x-decision"], f.decision, `${p}.${f.name}`);
      if (f.decision) assert.equal(props[f.name].default, f.default);
      else assert.equal(props[f.name].readOnly, true);
    }
  }
});

Deno.test("a context made by makeContext validates against its schema (strict Ajv)", () => {
  const validate = ajv().compile(pointSchema("work_item_start"));
  assert.ok(validate(start), JSON.stringify(validate.errors));
  assert.equal(validate({ ...start, proceed: "no" }), false);
  assert.equal(validate({ ...start, work_item: "github:acme/app#42" }), false);
  assert.equal(validate({ ...start, extra: 1 }), false);
});

Deno.test("the envelope schema takes {point, context} for every point and refuses a mismatch", () => {
  const validate = ajv().compile(contextJsonSchema());
  assert.ok(
    validate({ point: "work_item_start", context: start }),
    JSON.stringify(validate.errors),
  );
  assert.equal(validate({ point: "session_spawn", context: start }), false);
  assert.equal(validate({ point: "nope", context: start }), false);
  const defs = contextJsonSchema().$defs as Record<string, unknown>;
  assert.deepEqual(Object.keys(defs).sort(), ["WorkItem", ...POINT_NAMES].sort());
});
