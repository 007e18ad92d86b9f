import assert from "node:assert/strict";
import { loadProblems, loadText } from "./_test_utils.ts";

const me = (channels: string[]) =>
  [
    "collaborators:",
    "  - handle: '@me'",
    "    roles: [engineer]",
    "    notifications:",
    "      channels:",
    ...channels.map((l) => "        " + l),
  ].join("\n") + "\n";

Deno.test("the seed's slack shape still loads, with the type's defaults and a default name", async () => {
  const config = await loadText(
    me(["- { type: slack, via: mcp, config: { channel-list: [ops] } }"]),
  );
  assert.deepEqual(config.collaborators[0].notifications.channels, [{
    name: "me-slack",
    type: "slack",
    enabled: true,
    timeoutSeconds: 5,
    via: "mcp",
    config: { "channel-list": ["ops"] },
    urlEnv: "THE_LOOP_SLACK_WEBHOOK_URL",
  }]);
  // a bare channel is a slack one
  const bare = await loadText(me(["- {}"]));
  assert.equal(bare.collaborators[0].notifications.channels[0].type, "slack");
  assert.deepEqual(bare.notifications.events["phase-changed"], []);
  assert.deepEqual(Object.keys(bare.notifications.events).length, 9);
});

Deno.test("webhook and command channels load with only their own keys", async () => {
  const config = await loadText(me([
    "- { type: webhook, url: 'https://hooks.example/x', secretEnv: HOOK_SECRET }",
    "- { name: pager, type: command, command: [./page.sh, --now], timeoutSeconds: 9 }",
  ]));
  const [hook, cmd] = config.collaborators[0].notifications.channels;
  assert.deepEqual(hook, {
    name: "me-webhook",
    type: "webhook",
    enabled: true,
    timeoutSeconds: 5,
    url: "https://hooks.example/x",
    secretEnv: "HOOK_SECRET",
  });
  // a command channel runs in the config file's directory; its ./program is found there
  const dir = cmd.type === "command" ? cmd.cwd! : "";
  assert.ok(dir.startsWith("/"), dir);
  assert.deepEqual(cmd, {
    name: "pager",
    type: "command",
    enabled: true,
    timeoutSeconds: 9,
    command: [`${dir}/page.sh`, "--now"],
    env: [],
    cwd: dir,
  });
});

Deno.test("another type's key, a missing url or command, a bad url: located problems", async () => {
  const lines = await loadProblems(me([
    "- type: slack",
    "  url: https://hooks.example/x",
    "- type: webhook",
    "- type: command",
    "  urlEnv: X_URL",
    "- type: webhook",
    "  name: other",
    "  url: ftp://secret-path.example/abc",
  ]));
  assert.deepEqual(lines, [
    "F:7:11: collaborators[0].notifications.channels[0].url: \"url\" is a webhook channel's key, not a slack channel's: remove it, or set type: webhook",
    'F:8:11: collaborators[0].notifications.channels[1]: missing required key "url" (a webhook channel POSTs the envelope to it)',
    'F:9:11: collaborators[0].notifications.channels[2]: missing required key "command" (the argv a command channel runs)',
    "F:10:11: collaborators[0].notifications.channels[2].urlEnv: \"urlEnv\" is a slack channel's key, not a command channel's: remove it, or set type: slack",
    "F:13:16: collaborators[0].notifications.channels[3].url: must be an http:// or https:// URL",
  ]);
  assert.ok(!lines.join("\n").includes("secret-path"), "the URL is never echoed");
});

Deno.test("channel names are unique across collaborators; a repeated default asks for a name", async () => {
  const lines = await loadProblems(
    [
      "collaborators:",
      "  - handle: '@me'",
      "    roles: [engineer]",
      "    notifications:",
      "      channels:",
      "        - { name: ops, type: slack }",
      "        - { type: slack }",
      "        - { type: slack }",
      "  - handle: '@you'",
      "    roles: [approver]",
      "    notifications:",
      "      channels:",
      "        - { name: ops, type: command, command: [x] }",
    ].join("\n") + "\n",
  );
  assert.deepEqual(lines, [
    'F:8:11: collaborators[0].notifications.channels[2]: this channel\'s default name "me-slack" is already used by collaborators[0].notifications.channels[1] (line 7): give it a name (name: …), unique across all collaborators',
    'F:13:19: collaborators[1].notifications.channels[0].name: channel name "ops" is already used by collaborators[0].notifications.channels[0] (line 6): channel names must be unique across all collaborators',
  ]);
});

Deno.test("a channel's secret variable that holds a token is refused", async () => {
  const lines = await loadProblems(me([
    "- { type: webhook, url: 'https://h.example/', secretEnv: ghp_abcdefghijklmnopqrstuvwxyz0123456789 }",
  ]));
  assert.equal(lines.length, 1);
  assert.match(lines[0], /secretEnv: .*token/);
  assert.ok(!lines[0].includes("abcdefghijklmnop"));
});
