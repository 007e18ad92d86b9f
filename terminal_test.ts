import assert from "node:assert/strict";
import { colour, colourWanted, promptSafe, visible } from "./terminal.ts";

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

Deno.test("promptSafe: every C0/C1 control, DEL and ESC becomes a printable stand-in", () => {
  const codes = [
    ...Array.from({ length: 0x20 }, (_, i) => i),
    0x7f,
    ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
  ];
  assert.equal(codes.length, 65);
  for (const code of codes) {
    const ch = String.fromCharCode(code);
    const out = promptSafe(`a${ch}b`);
    if (code === 0x0a || code === 0x09) assert.equal(out, `a${ch}b`);
    else if (code === 0x0d) assert.equal(out, "a\nb");
    else if (code < 0x20) assert.equal(out, `a${String.fromCharCode(0x2400 + code)}b`);
    else if (code === 0x7f) assert.equal(out, "a\u2421b");
    else assert.equal(out, `a\\x${code.toString(16)}b`);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(out, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, `0x${code.toString(16)}`);
  }
  assert.equal(promptSafe("\x1b[201~"), "␛[201~");
  assert.equal(promptSafe("\x00\x03\x1b"), "␀␃␛");
});

Deno.test("promptSafe: the paste markers and key sequences are gone; CRLF and a lone CR are LF", () => {
  const attack = "fine\x1b[201~\r!touch pwned\r\x1b[200~more\x1b[A\x9b201~";
  const out = promptSafe(attack);
  assert.equal(out, "fine␛[201~\n!touch pwned\n␛[200~more␛[A\\x9b201~");
  assert.ok(!out.includes("\x1b") && !out.includes("\r") && !out.includes("\x9b"));
  assert.equal(promptSafe("one\r\ntwo\rthree\n\rfour"), "one\ntwo\nthree\n\nfour");
  assert.equal(promptSafe("\tindented\n"), "\tindented\n");
});

Deno.test("promptSafe: invalid UTF-8 and lone surrogates become U+FFFD; printable text is kept", () => {
  assert.equal(
    promptSafe(new Uint8Array([0x6f, 0x6b, 0xff, 0xc3, 0x28, 0x1b])),
    "ok\ufffd\ufffd(␛",
  );
  assert.equal(promptSafe("a\ud800b\udc00c"), "a\ufffdb\ufffdc");
  assert.equal(
    promptSafe("emoji 🎉 kept, ünïcode — ✓, עברית \u200f"),
    "emoji 🎉 kept, ünïcode — ✓, עברית \u200f",
  );
  // what comes out encodes as valid UTF-8 and round-trips
  const out = promptSafe("x\udbff");
  assert.equal(
    new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(out)),
    out,
  );
});

Deno.test("promptSafe: idempotent", () => {
  const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join("") + "\ud800";
  const once = promptSafe(all);
  assert.equal(promptSafe(once), once);
});
