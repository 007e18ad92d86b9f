import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { CONFIG_TEMPLATE, loadConfig } from "./mod.ts";
import { envOf, tempTree } from "./_test_utils.ts";
import { parseLoops } from "../loops/mod.ts";

Deno.test("the starter template points editors at the schema and validates", async () => {
  assert.equal(
    CONFIG_TEMPLATE.split("\n")[0],
    "# yaml-language-server: $schema=./cli-config.schema.json",
  );
  const dir = tempTree({ ".the-loop/cli-config.yaml": CONFIG_TEMPLATE });
  const loaded = await loadConfig({ env: envOf({}), cwd: dir });
  assert.equal(loaded.path, join(dir, ".the-loop/cli-config.yaml"));
  assert.equal(loaded.config.state.root, join(dir, ".the-loop"));
});

Deno.test("the template's commented examples validate once uncommented", async () => {
  // Uncomment every "# key: value" example line (prose comments start otherwise) and load it
  // from where `init` writes it, `.the-loop/cli-config.yaml`: no example moves the state root.
  const lines = CONFIG_TEMPLATE.split("\n").filter((l) => !/^\s*(sources|hooks): \[\]/.test(l));
  const uncommented = lines.map((l) => l.replace(/^(\s*)# (\s*(- )?[a-z][A-Za-z]*:( |$))/, "$1$2"))
    .join("\n")
    .replaceAll("repos: [OWNER/REPO]", "repos: [octo/repo]");
  assert.doesNotThrow(() => parse(uncommented));
  assert.match(uncommented, /\nstate:\n {2}root: /);
  assert.match(uncommented, /\n {2}path: logs\/events\.jsonl/);
  const dir = tempTree({ ".the-loop/cli-config.yaml": uncommented });
  const loaded = await loadConfig({ env: envOf({}), cwd: dir });
  assert.equal(loaded.path, join(dir, ".the-loop/cli-config.yaml"));
  assert.equal(loaded.config.state.root, join(dir, ".the-loop"));
  assert.equal(loaded.config.eventLog.path, join(dir, ".the-loop/logs/events.jsonl"));
  assert.equal(loaded.config.polling.sources[0].repos[0], "octo/repo");
  assert.equal(loaded.config.hooks.length, 2);
  assert.equal(loaded.config.webhooks.ghWebhook.routing.loop, "adhoc");
  const loops = parseLoops(loaded.config.loops, { locate: loaded.locate });
  assert.deepEqual([...loops.keys()], ["adhoc", "pdlc", "explore"]);
  assert.deepEqual(loaded.config.webhooks.ghWebhook.routing.harnessArgs.claude, [
    "--permission-mode",
    "acceptEdits",
  ]);
});
