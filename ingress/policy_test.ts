import assert from "node:assert/strict";
import { join } from "node:path";
import { configFromText } from "../config/mod.ts";
import { DEFAULT_EVENTS, policyFromConfig, policyWarnings } from "./policy.ts";

async function policyOf(yaml: string) {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-policy-" });
  try {
    const file = join(dir, "cli-config.yaml");
    const { config } = await configFromText(yaml, { file, env: () => undefined, cwd: dir });
    return policyFromConfig(config);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// no event list means the default set of routable events
Deno.test("with no events list, the filter is the routable set including lifecycle events", async () => {
  const policy = await policyOf('version: "0.1.0"\n');
  assert.deepEqual(policy.events, DEFAULT_EVENTS);
  assert.deepEqual(policy.events, [
    "issues",
    "issue_comment",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "workflow_run",
    "check_run",
    "check_suite",
    "status",
  ]);
  assert.equal(policy.autoExecuteLabel, "the-loop: auto-execute");
  assert.deepEqual(policy.authorizedUsers, []);
});

Deno.test("an explicit events list wins; the allowlist and label are read", async () => {
  const policy = await policyOf(
    'version: "0.1.0"\nwebhooks:\n  ghWebhook:\n    events: [issues, pull_request, issue_comment]\n' +
      '    routing:\n      authorizedUsers: [alice]\n      autoExecuteLabel: "go"\n',
  );
  assert.deepEqual(policy.events, ["issues", "pull_request", "issue_comment"]);
  assert.deepEqual(policy.authorizedUsers, ["alice"]);
  assert.equal(policy.autoExecuteLabel, "go");
  assert.deepEqual(policyWarnings(policy), []);
});

Deno.test("an empty allowlist warns that routing fails closed", () => {
  const warnings = policyWarnings({ events: [], authorizedUsers: [], autoExecuteLabel: "x" });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /authorizedUsers is empty: routing fails closed/);
});

Deno.test("an events list without issues or pull_request warns, naming what is missing", () => {
  const warn = (events: string[]) =>
    policyWarnings({ events, authorizedUsers: ["a"], autoExecuteLabel: "x" });
  assert.match(warn(["issue_comment"]).join(), /leaves out issues and pull_request/);
  assert.match(warn(["issues", "issue_comment"]).join(), /leaves out pull_request:/);
  assert.deepEqual(warn(["issues", "pull_request"]), []);
  assert.deepEqual(warn([]), []); // empty means the default set
});

Deno.test("a bot listed in authorizedUsers is warned about: it is authorized only as a bot", async () => {
  const policy = await policyOf(
    'webhooks:\n  ghWebhook:\n    routing:\n      authorizedUsers: [alice, "dependabot[bot]"]\n' +
      '      authorizedBots: ["renovate[bot]"]\n',
  );
  assert.deepEqual(policy.authorizedBots, ["renovate[bot]"]);
  assert.deepEqual(policyWarnings(policy), [
    "webhooks.ghWebhook.routing.authorizedUsers: dependabot[bot] is a bot; bots are " +
    "authorized only through routing.authorizedBots",
  ]);
});
