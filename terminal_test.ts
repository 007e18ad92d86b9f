import assert from "node:assert/strict";
import { visible } from "./terminal.ts";

Deno.test("visible: OSC 52, clear-screen and carriage return print as inert text", () => {
  const osc52 = "\x1b]52;c;ZXZpbA==\x07";
  const clear = "\x1b[2J\x1b[H";
  const out = visible(`${osc52}${clear}ok\rpassed`);
  assert.equal(out, "\\e]52;c;ZXZpbA==\\x07\\e[2J\\e[Hok\\rpassed");
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(out, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
});

Deno.test("visible: C1 controls and bidi overrides are shown; newlines kept unless one line", () => {
  assert.equal(visible("a\x9bb\u202ec"), "a\\x9bb\\u{202e}c");
  assert.equal(visible("line one\n\tline two"), "line one\n\tline two");
  assert.equal(visible("line one\n\ttwo", { multiline: false }), "line one\\n\\ttwo");
  assert.equal(visible("plain — ünïcode ✓"), "plain — ünïcode ✓");
});
