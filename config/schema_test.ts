import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { POINT_NAMES } from "../lifecycle/sdk/mod.ts";
import { CONFIG_SCHEMA } from "./mod.ts";
import type { SchemaNode } from "./describe.ts";
import { CUSTOM_KEYWORDS } from "./_validate.ts";

/** Keys that have no single default, and why. */
const NO_DEFAULT: Record<string, string> = {
  "webhooks.ghWebhook.routing.budgets.sessionHours": "absent: off",
  "webhooks.ghWebhook.routing.budgets.costUsd": "absent: off",
  "webhooks.ghWebhook.routing.budgets.tokens": "absent: off",
  "webhooks.ghWebhook.routing.budgets.turns": "absent: off",
  "webhooks.ghWebhook.routing.harnessModels.claude.model": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.claude.effort": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.cursor.model": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.cursor.effort": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.codex.model": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.codex.effort": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.gemini.model": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.gemini.effort": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.opencode.model": "absent: the harness's own default",
  "webhooks.ghWebhook.routing.harnessModels.opencode.effort": "absent: the harness's own default",
  "hooks[].path": "one of path|url|command picks the hook's kind",
  "hooks[].url": "one of path|url|command picks the hook's kind",
  "hooks[].command": "one of path|url|command picks the hook's kind",
  "hooks[].executor": "defaults to the module's one hooks class",
  "hooks[].on": "depends on the hook's kind",
  "hooks[].timeoutSeconds": "depends on the hook's kind",
  "hooks[].tokenEnv": "no token unless named",
  "hooks[].suspendTimeoutMinutes": "a parked operation is escalated only when a timeout is set",
  "webhooks.ghWebhook.routing.agentToken": "the agent gets no token unless one is named",
  "collaborators[].notifications.channels[].name":
    "computed: <handle without @>-<type> (config/channels.ts)",
  "collaborators[].notifications.channels[].urlEnv":
    "slack only: filled by type (config/channels.ts)",
  "collaborators[].notifications.channels[].via": "slack only: filled by type (config/channels.ts)",
  "collaborators[].notifications.channels[].config":
    "slack only: filled by type (config/channels.ts)",
  "collaborators[].notifications.channels[].url":
    "webhook only, and required there (config/channels.ts)",
  "collaborators[].notifications.channels[].secretEnv": "webhook only: no signature unless named",
  "collaborators[].notifications.channels[].command":
    "command only, and required there (config/channels.ts)",
  "collaborators[].notifications.channels[].env":
    "command only: filled by type (config/channels.ts)",
  "state.root": "computed from where the file is (x-default-doc words it for the docs)",
};

function walk(s: SchemaNode, path: string, visit: (s: SchemaNode, path: string) => void): void {
  visit(s, path);
  for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, SchemaNode>)) {
    walk(sub, path ? `${path}.${k}` : k, visit);
  }
  if (s.items) walk(s.items, `${path}[]`, visit);
}

Deno.test("the schema is draft 2020-12 and compiles under ajv strict mode", () => {
  assert.equal(CONFIG_SCHEMA.$schema, "https://json-schema.org/draft/2020-12/schema");
  const ajv = new Ajv2020({ strict: true });
  for (const k of CUSTOM_KEYWORDS) ajv.addKeyword(k);
  assert.equal(typeof ajv.compile(CONFIG_SCHEMA), "function");
});

Deno.test("every object with known keys forbids unknown ones", () => {
  const open: string[] = [];
  walk(CONFIG_SCHEMA, "", (s, path) => {
    if (s.properties && s.additionalProperties !== false) open.push(path);
  });
  assert.deepEqual(open, []);
});

Deno.test("every key has a description and a default (or is required, or listed)", () => {
  const missing: string[] = [];
  walk(CONFIG_SCHEMA, "", (s, path) => {
    for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, SchemaNode>)) {
      const at = path ? `${path}.${k}` : k;
      if (typeof sub.description !== "string" || sub.description.length < 5) missing.push(at);
      const required = (s.required ?? []).includes(k);
      if (sub.default === undefined && !required && !(at in NO_DEFAULT)) missing.push(at);
    }
  });
  assert.deepEqual(missing, []);
});

Deno.test("hooks[].on accepts exactly the seven lifecycle points", () => {
  const on = CONFIG_SCHEMA.properties.hooks.items.properties.on;
  assert.deepEqual(on.items.enum, [...POINT_NAMES]);
});

Deno.test("hook permissions grant only net, read, write and env", () => {
  const perms = CONFIG_SCHEMA.properties.hooks.items.properties.permissions;
  assert.deepEqual(Object.keys(perms.properties).sort(), ["env", "net", "read", "write"]);
  assert.equal(perms.additionalProperties, false);
});

Deno.test("every <state.root> default is a path key", () => {
  const bad: string[] = [];
  walk(CONFIG_SCHEMA, "", (s, path) => {
    if (typeof s.default === "string" && s.default.startsWith("<state.root>") && !s["x-path"]) {
      bad.push(path);
    }
  });
  assert.deepEqual(bad, []);
});

Deno.test("a path key refuses empty, unless empty has a documented meaning", () => {
  const bad: string[] = [];
  walk(CONFIG_SCHEMA, "", (s, path) => {
    if (!s["x-path"] || s.minLength >= 1) return;
    if (s.default !== "" || !/\bempty\b/i.test(s.description)) bad.push(path);
  });
  assert.deepEqual(bad, []);
});

Deno.test("every key ending in Env (and every env list) refuses a token", () => {
  const bad: string[] = [];
  walk(CONFIG_SCHEMA, "", (s, path) => {
    // a mapping ending in Env (routing.harnessEnv) holds names: its `pass` list is checked below
    if (/Env$/.test(path) && s.type !== "object" && s["x-env-name"] !== true) bad.push(path);
    if (/Env\.pass$/.test(path) && s.items["x-env-name"] !== true) bad.push(path);
    if (/\.env$/.test(path) && s.type === "array" && s.items["x-env-name"] !== true) bad.push(path);
  });
  assert.deepEqual(bad, []);
});

Deno.test("hooks[].timeoutSeconds has the declaration parser's bound", async () => {
  const { MAX_TIMEOUT_SECONDS } = await import("../lifecycle/mod.ts");
  const schema = JSON.parse(
    await Deno.readTextFile(new URL("../schema/cli-config.schema.json", import.meta.url)),
  );
  assert.equal(
    schema.properties.hooks.items.properties.timeoutSeconds.maximum,
    MAX_TIMEOUT_SECONDS,
  );
});
