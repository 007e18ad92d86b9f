import assert from "node:assert/strict";
import { parseDeclaration } from "./declaration/mod.ts";
import { redact, redactor, secretForms, secretsOf } from "./secrets.ts";

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

const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

Deno.test("redact: base64, base64url, hex and percent-encoded forms of a secret too", () => {
  const secret = "tl-key/+ 5b?9d=0c&é-7f3a";
  const bytes = new TextEncoder().encode(secret);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const std = b64(secret);
  const forms = {
    base64: std,
    base64_unpadded: std.replace(/=+$/, ""),
    base64url: std.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""),
    hex,
    hex_upper: hex.toUpperCase(),
    uri_component: encodeURIComponent(secret),
    uri_lower: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    uri: encodeURI(secret),
    form: new URLSearchParams({ k: secret }).toString().slice(2),
  };
  for (const [name, form] of Object.entries(forms)) {
    assert.equal(redact(`${name}: <${form}>`, [secret]), `${name}: <[redacted]>`, form);
  }
});

Deno.test("redact: a secret inside a longer base64 text, at each of the three alignments", () => {
  const secret = "hunter2-is-the-password";
  for (const prefix of ["", "u:", "ab:", "user:"]) {
    const text = b64(`${prefix}${secret}!`);
    const out = redact(`Authorization: Basic ${text}`, [secret]);
    assert.match(out, /^Authorization: Basic [A-Za-z0-9+/]{0,8}\[redacted\][A-Za-z0-9+/=]{0,4}$/);
  }
});

Deno.test("secretForms: none under 4 characters, each form once", () => {
  assert.deepEqual(secretForms("abc"), []);
  const forms = secretForms("abcd");
  assert.equal(new Set(forms).size, forms.length);
  assert.ok(forms.includes("abcd") && forms.includes("YWJjZA==") && forms.includes("61626364"));
  assert.ok(forms.every((f) => f.length >= 4));
  // text that merely looks like an encoding of nothing secret is left alone
  assert.equal(redact("YWJj 616263 a%62c", ["abcd"]), "YWJj 616263 a%62c");
});
