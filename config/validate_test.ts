import assert from "node:assert/strict";
import { join } from "node:path";
import { ProblemsError } from "../errors.ts";
import { loadConfig } from "./mod.ts";
import { envOf, tempTree } from "./_test_utils.ts";

const GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"; // token-shaped, not a real token
const HEX = "3f9a1c0be7d24a6f8b1e5c9d0a7b3e2f";

/** The problem lines of loading `text` as a config file (the file's path shown as `F`). */
async function problems(text: string, env: Record<string, string> = {}): Promise<string[]> {
  const dir = tempTree({ "c.yaml": text });
  const file = join(dir, "c.yaml");
  const error = await loadConfig({ flag: file, env: envOf(env), cwd: dir }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof ProblemsError, `expected ProblemsError, got ${error}`);
  return error.message.replaceAll(file, "F").split("\n");
}

const TOKEN_HINT = "this looks like a token, not a variable name — put the NAME of the " +
  "environment variable that holds it";

Deno.test("a token pasted into any *Env key is refused, and never echoed", async () => {
  const lines = await problems([
    `github: { tokenEnv: ${GHP} }`,
    `webhooks: { ghWebhook: { secretEnv: ${HEX} } }`,
    "hooks:",
    `  - { name: r, url: "https://h.example/rpc", tokenEnv: github_pat_11AAAA }`,
    `  - { name: c, command: [x], env: [HOME, ${GHP}] }`,
  ].join("\n"));
  assert.deepEqual(lines, [
    `F:1:21: github.tokenEnv: ${TOKEN_HINT} (e.g. GITHUB_TOKEN)`,
    `F:2:37: webhooks.ghWebhook.secretEnv: ${TOKEN_HINT} (e.g. THE_LOOP_GH_WEBHOOK_SECRET)`,
    `F:4:56: hooks[0].tokenEnv: ${TOKEN_HINT} (e.g. MY_HOOK_TOKEN)`,
    `F:5:42: hooks[1].env[1]: ${TOKEN_HINT} (e.g. MY_HOOK_TOKEN)`,
  ]);
  const text = lines.join("\n");
  for (const secret of [GHP, HEX, "github_pat_11AAAA"]) assert.ok(!text.includes(secret));
});

Deno.test("a value that is not a variable name is refused without being echoed", async () => {
  const lines = await problems("github:\n  tokenEnv: ghp-Secret/Value\n");
  assert.deepEqual(lines, [
    "F:2:13: github.tokenEnv: must be a string matching /^[A-Za-z_][A-Za-z0-9_]*$/",
  ]);
});

Deno.test("values under headers and secret-looking keys are never echoed", async () => {
  const lines = await problems([
    "hooks:",
    "  - name: r",
    "    url: https://h.example/rpc",
    "    headers: { Authorization: 12345, X-Trace: [Hunter2] }",
  ].join("\n"));
  assert.deepEqual(lines, [
    "F:4:31: hooks[0].headers.Authorization: must be a string",
    "F:4:47: hooks[0].headers.X-Trace: must be a string",
  ]);
});

Deno.test("a token echoed in any other problem is masked", async () => {
  const lines = await problems(`github: { apiUrl: ${GHP} }\n`);
  assert.deepEqual(lines, [
    "F:1:19: github.apiUrl: must be an https:// URL (http:// only to 127.0.0.1, localhost or " +
    '[::1]) (got "[redacted]")',
  ]);
});

Deno.test("an empty path is refused where empty means nothing", async () => {
  const lines = await problems([
    'state: { root: "" }',
    'eventLog: { path: "" }',
    'polling: { stateFile: "", pidfile: "" }',
    'webhooks: { ghWebhook: { pidfile: "", routing: { registryDir: "", workspace: { root: "" } } } }',
  ].join("\n"));
  assert.deepEqual(lines.map((l) => l.replace(/^F:\d+:\d+: /, "")), [
    'state.root: must be a non-empty string (got "")',
    'eventLog.path: must be a non-empty string (got "")',
    'polling.stateFile: must be a non-empty string (got "")',
    'polling.pidfile: must be a non-empty string (got "")',
    'webhooks.ghWebhook.pidfile: must be a non-empty string (got "")',
    'webhooks.ghWebhook.routing.registryDir: must be a non-empty string (got "")',
    'webhooks.ghWebhook.routing.workspace.root: must be a non-empty string (got "")',
  ]);
});

Deno.test("empty keeps its meaning for the template paths and spawnWorkdir", async () => {
  const dir = tempTree({
    "c.yaml": 'webhooks: { ghWebhook: { routing: { promptTemplate: "", spawnWorkdir: "" } } }\n',
  });
  const { config } = await loadConfig({ flag: join(dir, "c.yaml"), env: envOf({}), cwd: dir });
  assert.equal(config.webhooks.ghWebhook.routing.promptTemplate, "");
  assert.equal(config.webhooks.ghWebhook.routing.spawnWorkdir, "");
});

Deno.test("github.apiUrl: https anywhere, http only to a loopback host", async () => {
  const dir = tempTree();
  for (
    const url of [
      "https://api.github.com",
      "https://ghe.example/api/v3",
      "http://127.0.0.1:9999",
      "http://localhost/api/v3",
      "http://[::1]:8080",
    ]
  ) {
    const loaded = await loadConfig({ env: envOf({ GITHUB_API_URL: url }), cwd: dir });
    assert.equal(loaded.config.github.apiUrl, url);
  }
  for (const url of ["http://ghe.example", "http://127.0.0.1.evil.example", "ftp://x", "x"]) {
    const lines = await problems(`github: { apiUrl: "${url}" }\n`);
    assert.match(lines[0], /^F:1:19: github\.apiUrl: must be an https:\/\/ URL/, url);
  }
});

Deno.test("$GITHUB_API_URL is checked like the key it supplies, when it is used", async () => {
  const dir = tempTree({ "c.yaml": "github: { apiUrl: https://ghe.example/api/v3 }\n" });
  const env = envOf({ GITHUB_API_URL: "garbage" });
  const error = await loadConfig({ env, cwd: dir }).then(() => undefined, (e) => e);
  assert.ok(error instanceof ProblemsError);
  assert.equal(
    error.message,
    "$GITHUB_API_URL: must be an https:// URL (http:// only to 127.0.0.1, localhost or [::1]) " +
      '(got "garbage"); fix it, unset it, or set github.apiUrl in the config file',
  );
  // the file sets github.apiUrl: the variable is not used, so not checked
  const loaded = await loadConfig({ flag: join(dir, "c.yaml"), env, cwd: dir });
  assert.equal(loaded.config.github.apiUrl, "https://ghe.example/api/v3");
  // listed together with the file's own problems
  assert.deepEqual(await problems("polling: { intervalSeconds: 0 }\n", { GITHUB_API_URL: "x" }), [
    "F:1:29: polling.intervalSeconds: must be an integer ≥ 1 (got 0)",
    "$GITHUB_API_URL: must be an https:// URL (http:// only to 127.0.0.1, localhost or [::1]) " +
    '(got "x"); fix it, unset it, or set github.apiUrl in the config file',
  ]);
});

Deno.test("an unknown key that is a token is masked in the key path, with no suggestion", async () => {
  const lines = await problems(`github: { ${GHP}: 1, tokenEnvv: X }\n`);
  assert.deepEqual(lines, [
    'F:1:11: github.[redacted]: unknown key "[redacted]"',
    'F:1:56: github.tokenEnvv: unknown key "tokenEnvv" (did you mean "tokenEnv"?)',
  ]);
});

Deno.test("a token in permissions.env is refused as a token, not as a bad grant", async () => {
  const lines = await problems([
    "hooks:",
    "  - name: m",
    "    path: m.ts",
    `    permissions: { env: [ROSTER_*, ${GHP}] }`,
  ].join("\n"));
  assert.deepEqual(lines, [
    `F:4:36: hooks[0].permissions.env[1]: ${TOKEN_HINT} (e.g. MY_HOOK_TOKEN)`,
  ]);
});
