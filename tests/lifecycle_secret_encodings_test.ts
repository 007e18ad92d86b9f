/**
 * A hostile hook that says its granted secret ENCODED — base64, base64url, inside a Basic
 * credential, hex, percent-encoded — gets it redacted anyway: in the reason posted on the ticket,
 * in its failure, in every event and warning.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as engine from "../lifecycle/mod.ts";
import { configured, moduleHook, startCtx } from "./_test_utils.ts";

// a slash, a plus, a space, "?", "=", "&" and a non-ASCII letter: every encoding differs
const SECRET = "tl-key/+ 5b?9d=0c&é-7f3a";
const VAR = "TL_E2E_ENCODED_KEY";

/** The encodings, computed here (not by the code under test). */
function encodings(s: string): Record<string, string> {
  const bytes = new TextEncoder().encode(s);
  const b64 = btoa(String.fromCharCode(...bytes));
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const uri = encodeURIComponent(s);
  return {
    base64: b64,
    base64_unpadded: b64.replace(/=+$/, ""),
    base64url: b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""),
    hex,
    hex_upper: hex.toUpperCase(),
    uri_component: uri,
    uri_lower: uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    form: new URLSearchParams({ k: s }).toString().slice(2),
  };
}

/** The same encodings, computed inside the hook from its env grant. */
const HOOK_ENCODINGS = `const s = Deno.env.get("${VAR}") ?? "";
    const bytes = new TextEncoder().encode(s);
    const b64 = btoa(String.fromCharCode(...bytes));
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    const uri = encodeURIComponent(s);
    const forms: Record<string, string> = {
      base64: b64,
      base64_unpadded: b64.replace(/=+$/, ""),
      base64url: b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""),
      hex,
      hex_upper: hex.toUpperCase(),
      uri_component: uri,
      uri_lower: uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      form: new URLSearchParams({ k: s }).toString().slice(2),
      basic: "Basic " + btoa(String.fromCharCode(...new TextEncoder().encode("ops:" + s))),
    };
    const said = Object.entries(forms).map(([k, v]) => k + "=" + v).join(" ");`;

const FORMS = encodings(SECRET);
const BASIC = btoa(String.fromCharCode(...new TextEncoder().encode("ops:" + SECRET)));

function assertNoForm(...texts: unknown[]) {
  for (const t of texts) {
    const s = typeof t === "string" ? t : JSON.stringify(t);
    for (const [name, form] of Object.entries({ raw: SECRET, ...FORMS, basic: BASIC })) {
      assert.ok(!s.includes(form), `the secret leaked as ${name}: ${s.slice(0, 400)}`);
    }
  }
}

/** Each `name=value` of `text` (one line, space-separated) must be `name=[redacted]`. */
function assertEachRedacted(text: string) {
  for (const name of Object.keys(FORMS)) {
    assert.ok(text.includes(`${name}=[redacted] `), `${name} not redacted whole in: ${text}`);
  }
  // inside a longer base64 text only the characters the secret alone decides are known
  assert.match(text, /basic=Basic [A-Za-z0-9+/]{0,8}\[redacted\][A-Za-z0-9+/]{0,3}=*/);
}

async function withSecret(fn: () => Promise<void>) {
  Deno.env.set(VAR, SECRET);
  try {
    await fn();
  } finally {
    Deno.env.delete(VAR);
  }
}

Deno.test("the encodings under test differ from the secret and from one another", () => {
  assert.equal(new Set([SECRET, ...Object.values(FORMS)]).size, Object.keys(FORMS).length + 1);
});

Deno.test("a hook's refusal reason saying its env grant encoded is redacted in every form", () =>
  withSecret(async () => {
    const h = await configured(
      `hooks:\n  - name: leaky\n    path: hooks/leaky.ts\n    permissions: {env: [${VAR}]}\n`,
      {
        "hooks/leaky.ts": moduleHook(
          `${HOOK_ENCODINGS}\n    return { proceed: false, reason: said + " end" };`,
        ),
      },
      { strict: true },
    );
    try {
      const ctx = await engine.run("work_item_start", startCtx());
      assert.equal(ctx.proceed, false);
      assertEachRedacted(ctx.reason);
      const [refused] = h.sink.ofType("hooks.refused");
      assertEachRedacted(String(refused.reason));
      assertNoForm(ctx.reason, h.sink.records, h.warnings);
    } finally {
      await h.cleanup();
    }
  }));

Deno.test("a required hook's error saying its env grant encoded is redacted in every form", () =>
  withSecret(async () => {
    const h = await configured(
      `hooks:
  - name: leaky
    path: hooks/leaky.ts
    required: true
    permissions: {env: [${VAR}]}
`,
      { "hooks/leaky.ts": moduleHook(`${HOOK_ENCODINGS}\n    throw new Error(said + " end");`) },
      { strict: true },
    );
    try {
      const ctx = await engine.run("work_item_start", startCtx());
      assert.equal(ctx.proceed, false);
      assert.match(ctx.reason, /^required hook "leaky" failed: /);
      assertEachRedacted(ctx.reason);
      const [failed] = h.sink.ofType("hooks.failed");
      assertEachRedacted(String(failed.error));
      assert.ok(h.warnings.length > 0);
      for (const w of h.warnings.filter((w) => w.includes("failed:"))) assertEachRedacted(w);
      assertNoForm(ctx.reason, h.sink.records, h.warnings);
    } finally {
      await h.cleanup();
    }
  }));
