/**
 * Secret values a declaration hands its hooks (a command's pass-throughs, a module's env grants)
 * never reach the event log, a warning, or the reason posted on the ticket — whatever the hook
 * prints or throws.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as engine from "../lifecycle/mod.ts";
import { configured, moduleHook, startCtx } from "./_test_utils.ts";

const SECRET = "tl-e2e-roster-key-5b9d0c";
const VAR = "TL_E2E_ROSTER_KEY";

function assertNoSecret(...texts: unknown[]) {
  for (const t of texts) {
    const s = typeof t === "string" ? t : JSON.stringify(t);
    assert.ok(!s.includes(SECRET), `the secret leaked: ${s.slice(0, 300)}`);
  }
}

Deno.test("a command's exit-2 refusal: its stderr becomes a redacted reason of at most 500 characters", async () => {
  const refuse = `#!/bin/sh
cat >/dev/null
echo "denied: key $${VAR} is not on the roster" >&2
i=0
while [ $i -lt 100 ]; do echo "detail line $i of a very long explanation" >&2; i=$((i+1)); done
exit 2
`;
  const env = (n: string) => (n === VAR ? SECRET : Deno.env.get(n));
  const h = await configured(
    `hooks:\n  - name: roster\n    command: ["./hooks/refuse.sh"]\n    env: [${VAR}]\n`,
    { "hooks/refuse.sh": refuse },
    { strict: true, env },
  );
  try {
    const ctx = await engine.run("work_item_start", startCtx());
    assert.equal(ctx.proceed, false);
    assert.match(ctx.reason, /^denied: key \[redacted\] is not on the roster\ndetail line 0 /);
    assert.equal(ctx.reason.length, 500);
    assert.ok(ctx.reason.endsWith("…"), ctx.reason.slice(-20));
    const [refused] = h.sink.ofType("hooks.refused");
    assert.equal(refused.reason, ctx.reason);
    const [ran] = h.sink.ofType("hooks.ran");
    assert.equal(ran.exit_code, 2);
    assert.match(String(ran.stderr), /^denied: key \[redacted\]/);
    assertNoSecret(ctx.reason, h.sink.records, h.warnings);
  } finally {
    await h.cleanup();
  }
});

Deno.test("a module hook's env grant is redacted from its failure: event, warning and required reason", async () => {
  Deno.env.set(VAR, SECRET);
  try {
    const h = await configured(
      `hooks:
  - name: roster
    path: hooks/roster.ts
    required: true
    permissions: {env: [${VAR}]}
`,
      {
        "hooks/roster.ts": moduleHook(
          `throw new Error("roster refused key " + Deno.env.get("${VAR}"));`,
        ),
      },
      { strict: true },
    );
    try {
      const ctx = await engine.run("work_item_start", startCtx());
      assert.equal(ctx.proceed, false);
      assert.match(ctx.reason, /^required hook "roster" failed: .*roster refused key \[redacted\]/);
      const [failed] = h.sink.ofType("hooks.failed");
      assert.match(String(failed.error), /roster refused key \[redacted\]/);
      assert.ok(h.warnings.some((w) => /roster refused key \[redacted\]/.test(w)), h.warnings[0]);
      assertNoSecret(ctx.reason, h.sink.records, h.warnings);
    } finally {
      await h.cleanup();
    }
  } finally {
    Deno.env.delete(VAR);
  }
});

Deno.test("a module hook that says its env grant while failing to load: the load failure is redacted", async () => {
  Deno.env.set(VAR, SECRET);
  try {
    const h = await configured(
      `hooks:\n  - name: roster\n    path: hooks/roster.ts\n    permissions: {env: [${VAR}]}\n`,
      {
        "hooks/roster.ts": `throw new Error("cannot start with key " + Deno.env.get("${VAR}"));\n`,
      },
      { strict: false },
    );
    try {
      const [failed] = h.sink.ofType("hooks.load_failed");
      assert.match(String(failed.error), /hook "roster": .*cannot start with key \[redacted\]/s);
      assert.match(h.warnings[0], /running without hooks: .*\[redacted\]/s);
      assertNoSecret(h.sink.records, h.warnings);
    } finally {
      await h.cleanup();
    }
  } finally {
    Deno.env.delete(VAR);
  }
});
