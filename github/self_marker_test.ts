import assert from "node:assert/strict";
import { ATTRIBUTION, isSelfAuthored, markSelfAuthored, SELF_MARKER } from "./mod.ts";

Deno.test("markSelfAuthored stamps the attribution and the marker, once", () => {
  const once = markSelfAuthored("Done.\n\n");
  assert.equal(once, `Done.\n\n${ATTRIBUTION}\n${SELF_MARKER}\n`);
  assert.equal(markSelfAuthored(once), once);
  assert.ok(isSelfAuthored(once));
  assert.ok(!isSelfAuthored("Done."));
  assert.ok(!isSelfAuthored(null));
  assert.equal(markSelfAuthored(""), `${ATTRIBUTION}\n${SELF_MARKER}\n`);
});
