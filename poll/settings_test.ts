import assert from "node:assert/strict";
import { configFromText } from "../config/mod.ts";
import { isAuthorized } from "../ingress/mod.ts";
import { settingsFromConfig } from "./settings.ts";

Deno.test("the poller reads the allowlist as the router does: `@Alice ` is alice", async () => {
  const yaml = 'webhooks: { ghWebhook: { routing: { authorizedUsers: ["@Alice ", Bob] } } }\n';
  const { config } = await configFromText(yaml, {
    file: "/tmp/cli-config.yaml",
    env: () => undefined,
    cwd: "/tmp",
  });
  const users = config.webhooks.ghWebhook.routing.authorizedUsers;
  assert.deepEqual(settingsFromConfig(config).authorizedUsers, ["alice", "bob"]);
  for (const login of ["alice", "ALICE", "bob"]) {
    assert.equal(isAuthorized("issue_comment", login, users), true, login);
  }
});
