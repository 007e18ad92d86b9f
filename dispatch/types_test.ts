import assert from "node:assert/strict";
import { FAILURE_STAGES, reasonOf, SETTLED_REASONS } from "./types.ts";

Deno.test("docs/dispatch.md's outcome tables list every settled reason and failure stage", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/dispatch.md", import.meta.url));
  const rows = (names: string[]) => names.filter((n) => !doc.includes(`| \`${n}\` `));
  assert.deepEqual(rows(Object.keys(SETTLED_REASONS)), []);
  assert.deepEqual(rows(Object.keys(FAILURE_STAGES)), []);
});

Deno.test("an outcome's reason in words: a settled reason, or stage: message", () => {
  assert.equal(reasonOf({ status: "delivered" }), null);
  assert.equal(reasonOf({ status: "settled", reason: "awaiting-start" }), "awaiting-start");
  assert.equal(
    reasonOf({ status: "failed", stage: "spawn", cause: "error", message: "boom", retry: true }),
    "spawn: boom",
  );
  // aborted before its turn: `routing.routed` says `aborted`, as it always has
  assert.equal(
    reasonOf({
      status: "failed",
      stage: "queue",
      cause: "aborted",
      message: "aborted",
      retry: true,
    }),
    "aborted",
  );
  // a dispatcher that rejected: its error's message alone, as the router always said it
  assert.equal(
    reasonOf({
      status: "failed",
      stage: "dispatcher",
      cause: "error",
      message: "disk full",
      retry: true,
    }),
    "disk full",
  );
});
