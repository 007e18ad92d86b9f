import assert from "node:assert/strict";
import { isSecretPath, looksLikeToken, maskProblem, maskTokens } from "./_secrets.ts";

const GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"; // token-shaped, not a real token

Deno.test("looksLikeToken: GitHub prefixes and long random parts, not variable names", () => {
  for (const token of [GHP, "gho_abc", "ghu_x", "ghs_1", "ghr_2", "github_pat_11ABC"]) {
    assert.equal(looksLikeToken(token), true, token);
  }
  assert.equal(looksLikeToken("3f9a1c0be7d24a6f8b1e5c9d0a7b3e2f"), true); // a hex key
  assert.equal(looksLikeToken("AKIAIOSFODNN7EXAMPLE"), true); // 20 chars, letters and digits
  for (
    const name of [
      "GITHUB_TOKEN",
      "THE_LOOP_GH_WEBHOOK_SECRET",
      "GHS_TOKEN", // uppercase: a name, not a prefix
      "MY_SERVICE_2_PRODUCTION_DEPLOYMENT_TOKEN",
      "VERYLONGNAMEWITHOUTDIGITSATALL",
      "ghp", // no underscore: not the prefix
    ]
  ) {
    assert.equal(looksLikeToken(name), false, name);
  }
});

Deno.test("maskTokens masks tokens and credentials in free text", () => {
  assert.equal(maskTokens(`use ${GHP} now`), "use [redacted] now");
  assert.equal(maskTokens("Bearer abcdefghijklmnop1234"), "Bearer [redacted]");
  assert.equal(maskTokens("https://api.github.com"), "https://api.github.com");
});

Deno.test("isSecretPath: headers, secret-looking keys and variable-name keys", () => {
  assert.equal(isSecretPath(["hooks", 0, "headers", "X-Trace"]), true);
  assert.equal(isSecretPath(["hooks", 0, "with", "apiToken"]), true);
  assert.equal(isSecretPath(["x", "clientSecret"]), true);
  assert.equal(isSecretPath(["x", "Password"]), true);
  assert.equal(isSecretPath(["github", "tokenEnv"]), true);
  assert.equal(isSecretPath(["hooks", 0, "env", 1]), true);
  assert.equal(isSecretPath(["polling", "intervalSeconds"]), false);
  assert.equal(isSecretPath(["github", "apiUrl"]), false);
});

Deno.test("maskTokens knows Slack, sk-, GitLab, npm and AWS shapes, and tokens glued to text", () => {
  const shapes = [
    "xoxb-" + "123456789012-abcdefABCDEF",
    "sk-" + "proj-a1B2c3D4e5F6g7H8i9J0k1L2",
    "sk_live_" + "a1B2c3D4e5F6g7H8i9J0",
    "glpat-" + "a1B2c3D4e5F6g7H8i9J0",
    "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "AKIA" + "IOSFODNN7EXAMPLE",
  ];
  for (const t of shapes) assert.equal(maskTokens(`key ${t} end`), "key [redacted] end", t);
  assert.equal(maskTokens(`github.x${GHP}`), "github.x[redacted]");
  assert.equal(maskTokens(`MY_${GHP}`), "MY_[redacted]");
  assert.equal(maskTokens("aBearer abcdefghijklmnop1234"), "aBearer [redacted]");
  // ordinary words and paths that merely contain the letters stay as they are
  for (const text of ["hooks/risk-check-2024-quarterly-v2.ts", "task-assessment-for-the-team"]) {
    assert.equal(maskTokens(text), text);
  }
});

Deno.test("looksLikeToken: every shape the masker knows is a token, not a variable name", () => {
  for (const t of ["xoxb-1234567890-abc", "sk-proj-abc", "glpat-x", "npm_x", `X${GHP}`]) {
    assert.equal(looksLikeToken(t), true, t);
  }
});

Deno.test("maskProblem masks a problem's key path and message, nothing else", () => {
  assert.deepEqual(
    maskProblem({ file: "f", line: 1, col: 2, path: `github.${GHP}`, message: `unknown "${GHP}"` }),
    { file: "f", line: 1, col: 2, path: "github.[redacted]", message: 'unknown "[redacted]"' },
  );
});
