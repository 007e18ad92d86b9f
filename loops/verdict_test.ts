import assert from "node:assert/strict";
import { DEFAULT_GATE_KEYWORDS, gateKeyword, parseVerdict } from "./verdict.ts";

const GATE = { outcomes: ["approve", "request-changes"], keywords: { ...DEFAULT_GATE_KEYWORDS } };
const verdict = (text: string) => parseVerdict(text, GATE);

Deno.test("the default keywords, and the-loop:<outcome> for an outcome not listed", () => {
  assert.equal(gateKeyword("approve", DEFAULT_GATE_KEYWORDS), "the-loop:approve");
  assert.equal(gateKeyword("request-changes", DEFAULT_GATE_KEYWORDS), "the-loop:request-changes");
  assert.equal(gateKeyword("ship", DEFAULT_GATE_KEYWORDS), "the-loop:ship");
  assert.equal(gateKeyword("toString", {}), "the-loop:toString");
  assert.equal(gateKeyword("approve", { approve: "lgtm" }), "lgtm");
});

Deno.test("a keyword as a whole token, in any case, is the verdict", () => {
  assert.deepEqual(verdict("the-loop:approve"), { outcome: "approve" });
  assert.deepEqual(verdict("Looks good. **THE-LOOP:APPROVE**"), { outcome: "approve" });
  assert.deepEqual(verdict("(the-loop:request-changes) see below"), {
    outcome: "request-changes",
  });
  assert.deepEqual(verdict("the-loop:approve."), { outcome: "approve" });
});

Deno.test("no substring matches: not approved, prefixes and suffixes", () => {
  for (
    const text of [
      "not approved",
      "approve",
      "the-loop:approvex",
      "xthe-loop:approve",
      "the-loop:approve-now",
      "the-loop:approve:yes",
      "my-the-loop:approve",
      "",
    ]
  ) assert.deepEqual(verdict(text), {}, text);
});

Deno.test("never in a quote, a code block or inline code", () => {
  for (
    const text of [
      "> the-loop:approve",
      "```\nthe-loop:approve\n```",
      "    the-loop:approve",
      "run `the-loop:approve` when ready",
    ]
  ) assert.deepEqual(verdict(text), {}, text);
  assert.deepEqual(verdict("> the-loop:request-changes\n\nno, the-loop:approve"), {
    outcome: "approve",
  });
});

Deno.test("never in an HTML comment: GitHub shows nothing of it", () => {
  for (
    const text of [
      "<!-- the-loop:approve -->",
      "Thanks.\n<!--\nthe-loop:approve\n-->",
      "Thanks. <!-- the-loop:approve --> More later.",
      "Draft:\n\n<!-- the-loop:approve",
    ]
  ) assert.deepEqual(verdict(text), {}, text);
  assert.deepEqual(verdict("<!-- the-loop:request-changes --> the-loop:approve"), {
    outcome: "approve",
  });
  assert.deepEqual(verdict("the-loop:approve\n\n<!-- the-loop:request-changes -->"), {
    outcome: "approve",
  }, "a hidden verdict beside a visible one is no ambiguity");
  assert.deepEqual(
    verdict("see <!-- the-loop:approve"),
    { outcome: "approve" },
    "unclosed mid-line",
  );
});

Deno.test("two different verdicts are ambiguous; the same twice is one", () => {
  assert.deepEqual(verdict("the-loop:request-changes or the-loop:approve?"), {
    ambiguous: ["approve", "request-changes"],
  });
  assert.deepEqual(verdict("the-loop:approve\nyes, THE-LOOP:APPROVE"), { outcome: "approve" });
});

Deno.test("configured keywords, spaces matching any whitespace; an empty one disables", () => {
  const o = { outcomes: ["approve", "ship"], keywords: { approve: "looks  good to me", ship: "" } };
  assert.deepEqual(parseVerdict("Looks\ngood   to me", o), { outcome: "approve" });
  assert.deepEqual(parseVerdict("the-loop:approve", o), {}, "the default is replaced");
  assert.deepEqual(parseVerdict("the-loop:ship", o), {}, "an empty keyword disables");
  assert.deepEqual(
    parseVerdict("the-loop:ship", { outcomes: ["ship"], keywords: {} }),
    { outcome: "ship" },
  );
});

Deno.test("regular expression characters in a keyword are literal", () => {
  const o = { outcomes: ["approve"], keywords: { approve: "+1 (ok)" } };
  assert.deepEqual(parseVerdict("+1 (ok)", o), { outcome: "approve" });
  assert.deepEqual(parseVerdict("+1 ok", o), {});
});
