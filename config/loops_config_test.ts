import assert from "node:assert/strict";
import { loadProblems, loadText } from "./_test_utils.ts";

Deno.test("loops keys: routing.loop is adhoc, the gate keywords approve and request-changes", async () => {
  const config = await loadText("version: '0.1.0'\n");
  assert.equal(config.webhooks.ghWebhook.routing.loop, "adhoc");
  assert.deepEqual(config.webhooks.ghWebhook.routing.control.gateKeywords, {
    approve: "the-loop:approve",
    "request-changes": "the-loop:request-changes",
  });
  assert.deepEqual(config.loops, {});
});

Deno.test("loops keys: loops kept as written, gate keywords replaced as a whole", async () => {
  const config = await loadText(`webhooks:
  ghWebhook:
    routing:
      loop: mine
      control:
        gateKeywords: {approve: lgtm, ship: "ship it"}
loops:
  mine: {start: a, nodes: {a: {terminal: true}}}
`);
  assert.equal(config.webhooks.ghWebhook.routing.loop, "mine");
  assert.deepEqual(config.webhooks.ghWebhook.routing.control.gateKeywords, {
    approve: "lgtm",
    ship: "ship it",
  });
  assert.deepEqual(config.loops, { mine: { start: "a", nodes: { a: { terminal: true } } } });
});

Deno.test("loops keys: the schema refuses what is not a mapping of mappings or strings", async () => {
  const problems = await loadProblems(`webhooks:
  ghWebhook:
    routing:
      loop: ""
      control:
        gateKeywords: {Approve: 3}
loops: [a]
`);
  assert.deepEqual(problems, [
    'F:4:13: webhooks.ghWebhook.routing.loop: must be a non-empty string (got "")',
    "F:6:33: webhooks.ghWebhook.routing.control.gateKeywords.Approve: must be a string (got 3)",
    "F:7:8: loops: must be a mapping (got a list)",
  ]);
});
