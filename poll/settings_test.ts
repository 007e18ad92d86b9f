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

Deno.test("the poller authorizes bots only through authorizedBots, as the router does", async () => {
  const yaml = 'webhooks: { ghWebhook: { routing: { authorizedUsers: [alice, "x[bot]"], ' +
    'authorizedBots: ["Renovate[bot]"] } } }\n';
  const { config } = await configFromText(yaml, {
    file: "/tmp/cli-config.yaml",
    env: () => undefined,
    cwd: "/tmp",
  });
  const s = settingsFromConfig(config);
  assert.deepEqual(s.authorizedBots, ["renovate[bot]"]);
  const ok = (login: string) =>
    isAuthorized("issue_comment", login, s.authorizedUsers, { authorizedBots: s.authorizedBots });
  assert.deepEqual(["alice", "x[bot]", "renovate[bot]"].map(ok), [true, false, true]);
});
