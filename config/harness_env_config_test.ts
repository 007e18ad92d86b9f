import assert from "node:assert/strict";
import { loadProblems, loadText } from "./_test_utils.ts";

const SECRET = "holds the webhook secret (webhooks.ghWebhook.secretEnv), which must never reach " +
  "the agent (it forges signed deliveries): remove it";
const TOKEN = "holds the daemon's GitHub token, which is not handed to the agent: remove it, and " +
  "to give the agent a token set routing.agentToken: {env: NAME} to a narrower, fine-grained " +
  "token's variable";

Deno.test("harnessEnv: the webhook secret's variable is a config error at file:line:col", async () => {
  const lines = await loadProblems([
    "webhooks:",
    "  ghWebhook:",
    "    routing:",
    "      harnessEnv:",
    "        pass: [EDITOR, THE_LOOP_GH_WEBHOOK_SECRET]",
    "        set:",
    "          THE_LOOP_GH_WEBHOOK_SECRET: x",
    "      agentToken: { env: THE_LOOP_GH_WEBHOOK_SECRET }",
  ].join("\n"));
  assert.deepEqual(lines, [
    `F:5:24: webhooks.ghWebhook.routing.harnessEnv.pass[1]: THE_LOOP_GH_WEBHOOK_SECRET ${SECRET}`,
    `F:7:11: webhooks.ghWebhook.routing.harnessEnv.set.THE_LOOP_GH_WEBHOOK_SECRET: ` +
    `THE_LOOP_GH_WEBHOOK_SECRET ${SECRET}`,
    `F:8:26: webhooks.ghWebhook.routing.agentToken.env: THE_LOOP_GH_WEBHOOK_SECRET ${SECRET}`,
  ]);
});

Deno.test("harnessEnv: a renamed secretEnv is the one refused; the daemon's token points at agentToken", async () => {
  const lines = await loadProblems([
    "github: { tokenEnv: MY_DAEMON_TOKEN }",
    "webhooks:",
    "  ghWebhook:",
    "    secretEnv: MY_HOOK_SECRET",
    "    routing:",
    "      harnessEnv: { pass: [MY_HOOK_SECRET, MY_DAEMON_TOKEN, GH_TOKEN], set: { GITHUB_TOKEN: t } }",
  ].join("\n"));
  assert.deepEqual(lines, [
    `F:6:28: webhooks.ghWebhook.routing.harnessEnv.pass[0]: MY_HOOK_SECRET ${SECRET}`,
    `F:6:44: webhooks.ghWebhook.routing.harnessEnv.pass[1]: MY_DAEMON_TOKEN ${TOKEN}`,
    `F:6:61: webhooks.ghWebhook.routing.harnessEnv.pass[2]: GH_TOKEN ${TOKEN}`,
    `F:6:79: webhooks.ghWebhook.routing.harnessEnv.set.GITHUB_TOKEN: GITHUB_TOKEN ${TOKEN}`,
  ]);
  // THE_LOOP_GH_WEBHOOK_SECRET is only a name here: secretEnv names another variable
  const config = await loadText(
    "webhooks: { ghWebhook: { secretEnv: S, routing: { harnessEnv: { pass: [THE_LOOP_GH_WEBHOOK_SECRET] } } } }",
  );
  assert.deepEqual(config.webhooks.ghWebhook.routing.harnessEnv.pass, [
    "THE_LOOP_GH_WEBHOOK_SECRET",
  ]);
});

Deno.test("harnessEnv and agentToken: defaults, and what a file gives", async () => {
  const defaults = (await loadText("{}\n")).webhooks.ghWebhook.routing;
  assert.deepEqual(defaults.harnessEnv, { pass: [], set: {} });
  assert.equal(defaults.agentToken, undefined);
  const routing = (await loadText([
    "webhooks:",
    "  ghWebhook:",
    "    routing:",
    "      harnessEnv: { pass: [EDITOR], set: { GIT_AUTHOR_NAME: the-loop } }",
    "      agentToken: { env: AGENT_GH_TOKEN }",
  ].join("\n"))).webhooks.ghWebhook.routing;
  assert.deepEqual(routing.harnessEnv, { pass: ["EDITOR"], set: { GIT_AUTHOR_NAME: "the-loop" } });
  assert.deepEqual(routing.agentToken, { env: "AGENT_GH_TOKEN" });
  // a token pasted as a value is refused, and not echoed
  const GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"; // token-shaped, not a real token
  const pasted = await loadProblems(
    `webhooks: { ghWebhook: { routing: { harnessEnv: { set: { API_KEY: ${GHP} } } } } }`,
  );
  assert.deepEqual(pasted, [
    "F:1:67: webhooks.ghWebhook.routing.harnessEnv.set.API_KEY: this looks like a token, and " +
    "secrets never go in this file: put it in a variable of the daemon's environment and name " +
    "it in harnessEnv.pass instead",
  ]);
  assert.ok(!pasted.join("\n").includes(GHP));
  // a name that is not a variable's, and a token pasted in place of a name, are refused
  const bad = await loadProblems(
    "webhooks: { ghWebhook: { routing: { harnessEnv: { pass: ['a b'] }, agentToken: {} } } }",
  );
  assert.equal(bad.length, 2, bad.join("\n"));
});
