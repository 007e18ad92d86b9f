import assert from "node:assert/strict";
import { describeSchema, didYouMean, showValue } from "./describe.ts";
import { formatKeyPath } from "./yaml.ts";

Deno.test("describeSchema words each rule the way problems read", () => {
  assert.equal(describeSchema({ type: "integer", minimum: 1 }), "an integer ≥ 1");
  assert.equal(
    describeSchema({ type: "integer", minimum: 1, maximum: 9 }),
    "an integer from 1 to 9",
  );
  assert.equal(describeSchema({ type: "number", exclusiveMinimum: 0 }), "a number > 0");
  assert.equal(describeSchema({ type: "string", enum: ["a", "b"] }), "one of: a, b");
  assert.equal(describeSchema({ enum: ["", "eyes"] }), 'one of: "", eyes');
  assert.equal(describeSchema({ type: "boolean" }), "true or false");
  assert.equal(describeSchema({ type: "string", minLength: 1 }), "a non-empty string");
  assert.equal(
    describeSchema({ anyOf: [{ const: true }, { type: "array", items: { type: "string" } }] }),
    "true or a list of strings",
  );
  assert.equal(
    describeSchema({ type: "array", items: { type: "string" }, minItems: 1 }),
    "a list of strings with at least 1 item",
  );
});

Deno.test("showValue keeps values short and never dumps structures", () => {
  assert.equal(showValue("sixty"), '"sixty"');
  assert.equal(showValue([1, 2]), "a list");
  assert.equal(showValue({ a: 1 }), "a mapping");
  assert.equal(showValue(null), "nothing");
  assert.equal(showValue("x".repeat(100)).length, 42);
});

Deno.test("didYouMean suggests a close key and nothing for a far one", () => {
  const known = ["intervalSeconds", "stateFile", "sources"];
  assert.equal(didYouMean("intervalSecond", known), "intervalSeconds");
  assert.equal(didYouMean("Sources", known), "sources");
  assert.equal(didYouMean("zebra", known), undefined);
});

Deno.test("didYouMean suggests the key a unit suffix away", () => {
  const known = ["name", "timeoutSeconds", "maxBytes", "path"];
  assert.equal(didYouMean("timeout", known), "timeoutSeconds");
  assert.equal(didYouMean("timeoutMs", known), "timeoutSeconds");
  assert.equal(didYouMean("timeout_ms", known), "timeoutSeconds");
  assert.equal(didYouMean("maxMb", known), "maxBytes");
  assert.equal(didYouMean("max", known), "maxBytes");
  assert.equal(didYouMean("items", known), undefined);
});

Deno.test("formatKeyPath renders indexes in brackets", () => {
  assert.equal(formatKeyPath(["hooks", 1, "on", 0]), "hooks[1].on[0]");
  assert.equal(formatKeyPath(["polling", "intervalSeconds"]), "polling.intervalSeconds");
  assert.equal(formatKeyPath([]), "");
});
