import assert from "node:assert/strict";
import { colour, colourWanted, visible } from "./terminal.ts";

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

Deno.test("colour: ANSI when enabled, the text unchanged when not", () => {
  const on = colour(true), off = colour(false);
  assert.equal(on.red("error"), "\x1b[31merror\x1b[39m");
  assert.equal(on.green("✓"), "\x1b[32m✓\x1b[39m");
  assert.equal(on.yellow("warning"), "\x1b[33mwarning\x1b[39m");
  assert.equal(on.dim("note"), "\x1b[2mnote\x1b[22m");
  for (const f of [off.red, off.green, off.yellow, off.dim, off.bold]) assert.equal(f("x"), "x");
  assert.deepEqual([on.enabled, off.enabled], [true, false]);
});

Deno.test("colourWanted: a terminal only, and neither NO_COLOR nor --no-color", () => {
  assert.equal(colourWanted({ isTerminal: true }), true);
  assert.equal(colourWanted({ isTerminal: false }), false);
  assert.equal(colourWanted({ isTerminal: true, noColorEnv: "1" }), false);
  assert.equal(colourWanted({ isTerminal: true, noColorEnv: "0" }), false); // any non-empty value
  assert.equal(colourWanted({ isTerminal: true, noColorEnv: "" }), true);
  assert.equal(colourWanted({ isTerminal: true, noColorFlag: true }), false);
});
