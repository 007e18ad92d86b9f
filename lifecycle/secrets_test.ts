import assert from "node:assert/strict";
import { parseDeclaration } from "./declaration.ts";
import { redact, redactor, secretsOf } from "./secrets.ts";

const ENV: Record<string, string> = {
  REMOTE_TOKEN: "remote-token-value",
  PASSED: "passed-through-value",
  ROSTER_KEY: "roster-key-value",
  ACME_ONE: "acme-one-value",
  ACME_TWO: "acme-two-value",
  OTHER_TOKEN: "other-token-value",
  LANG: "en_US.UTF-8",
  SHORT: "abc",
};
const env = (n: string) => ENV[n];
const names = () => Object.keys(ENV);

function decl(yaml: unknown) {
  return parseDeclaration(yaml, { baseDir: "/cfg", home: "/home/op" });
}

Deno.test("secretsOf: tokens, header values, command pass-throughs and module env grants", () => {
  const d = decl([
    {
      name: "remote",
      url: "https://h.example/",
      tokenEnv: "REMOTE_TOKEN",
      headers: { "X-Team": "team-header-value" },
    },
    { name: "cmd", command: ["audit"], env: ["PASSED", "SHORT"] },
    { name: "mod", path: "m.ts", permissions: { env: ["ROSTER_KEY", "ACME_*", "UNSET"] } },
  ]);
  assert.deepEqual(secretsOf(d, env, { names })().sort(), [
    "acme-one-value",
    "acme-two-value",
    "passed-through-value",
    "remote-token-value",
    "roster-key-value",
    "team-header-value",
  ]);
});

Deno.test("secretsOf: env: true redacts only variables whose names look secret", () => {
  const d = decl([{ name: "mod", path: "m.ts", permissions: { env: true } }]);
  assert.deepEqual(secretsOf(d, env, { names })().sort(), [
    "other-token-value",
    "remote-token-value",
  ]);
});

Deno.test("secretsOf reads the values at each call (a rotated token counts)", () => {
  const vars: Record<string, string> = { T: "first-token" };
  const d = decl([{ name: "r", url: "https://h.example/", tokenEnv: "T" }]);
  const secrets = secretsOf(d, (n) => vars[n], { names: () => [] });
  assert.deepEqual(secrets(), ["first-token"]);
  vars.T = "second-token";
  assert.deepEqual(secrets(), ["second-token"]);
});

Deno.test("redact replaces every occurrence, longest first, never values under 4 characters", () => {
  assert.equal(
    redact("a=secret-long b=secret c=abc secret-long", ["secret", "secret-long", "abc", ""]),
    "a=[redacted] b=[redacted] c=abc [redacted]",
  );
  assert.equal(redactor(() => ["hunter22"])("pw hunter22"), "pw [redacted]");
  assert.equal(
    redactor(() => {
      throw new Error("x");
    })("pw hunter22"),
    "pw hunter22",
  );
});
