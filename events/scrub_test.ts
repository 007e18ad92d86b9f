import assert from "node:assert/strict";
import { EventLog, isSecretKey, MemorySink, REDACTED } from "./mod.ts";
import { maskTokens, scrub } from "./scrub.ts";

Deno.test("isSecretKey: secret-looking keys yes, env var names and look-alikes no", () => {
  for (
    const k of [
      "token",
      "GITHUB_TOKEN",
      "authToken",
      "webhookSecret",
      "client_secret",
      "password",
      "Authorization",
      "set-cookie",
      "apiKey",
      "x-api-key",
      "private_key",
    ]
  ) assert.equal(isSecretKey(k), true, k);
  for (
    const k of [
      "tokenEnv",
      "token_env",
      "secretEnv",
      "GITHUB_TOKEN_ENV",
      "input_tokens",
      "hook",
      "",
    ]
  ) assert.equal(isSecretKey(k), false, k);
});

Deno.test("scrub redacts secret values at any depth and masks token-shaped text", () => {
  const ghp = "ghp_" + "A1".repeat(18);
  const out = scrub({
    hook: "h",
    token: "s3cr3t",
    tokenEnv: "GH_TOKEN",
    headers: { Authorization: "Bearer abc", accept: "json" },
    list: [{ password: { nested: "x" } }, `Authorization: Bearer ${"z".repeat(30)} ok`],
    stderr: `failed with ${ghp} in it`,
    secret: null, // nothing to hide: kept
    has_secret: true,
  });
  assert.deepEqual(out, {
    hook: "h",
    token: REDACTED,
    tokenEnv: "GH_TOKEN",
    headers: { Authorization: REDACTED, accept: "json" },
    list: [{ password: REDACTED }, `Authorization: Bearer ${REDACTED} ok`],
    stderr: `failed with ${REDACTED} in it`,
    secret: null,
    has_secret: true,
  });
  assert.equal(maskTokens("a github_pat_" + "x".repeat(40)), `a ${REDACTED}`);
  assert.equal(maskTokens("no tokens here"), "no tokens here");
});

Deno.test("scrub turns anything into JSON data: cycles, bigints, errors, dates, functions", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const shared = { x: 1 };
  assert.deepEqual(
    scrub({
      cyclic,
      twice: [shared, shared],
      big: 10n,
      err: new Error("boom"),
      when: new Date(0),
      fn: () => 1,
      nan: NaN,
      undef: undefined,
    }),
    {
      cyclic: { a: 1, self: "[circular]" },
      twice: [{ x: 1 }, { x: 1 }],
      big: "10",
      err: "Error: boom",
      when: "1970-01-01T00:00:00.000Z",
      nan: "NaN",
    },
  );
});

Deno.test("secrets never reach the log file nor a MemorySink", () => {
  const secret = "hunter2-very-secret-value";
  const fields = { hook: "h", password: secret, config: { githubToken: secret }, tokenEnv: "GH" };
  const sink = new MemorySink();
  sink.emit("hooks.failed", fields);
  assert.equal(JSON.stringify(sink.records).includes(secret), false);
  assert.equal(sink.records[0].tokenEnv, "GH");
  const path = `${Deno.makeTempDirSync()}/events.jsonl`;
  new EventLog({ path, source: "cli" }).emit("hooks.failed", fields, { flush: true });
  const text = Deno.readTextFileSync(path);
  assert.equal(text.includes(secret), false);
  assert.match(text, /"password":"\[redacted\]"/);
  assert.match(text, /"githubToken":"\[redacted\]"/);
});
