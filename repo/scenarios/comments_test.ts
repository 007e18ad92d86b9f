import assert from "node:assert/strict";
import { commentBlocks, syntaxOf } from "./comments.ts";

Deno.test("syntaxOf: by extension, case-insensitive; unknown and dot-folders are undefined", () => {
  assert.equal(syntaxOf("a/b_test.ts"), "c");
  assert.equal(syntaxOf("a/b.test.MJS"), "c");
  assert.equal(syntaxOf("x_test.go"), "go");
  assert.equal(syntaxOf("tests/test_x.py"), "python");
  assert.equal(syntaxOf("tests/login.feature"), "plain");
  assert.equal(syntaxOf("tests/data.json"), undefined);
  assert.equal(syntaxOf("a.d/Makefile"), undefined);
});

Deno.test("block comments lose their markers; runs of line comments are one block each", () => {
  const text = "/** one\n * two\n */\ncode(); // three\n// four\n\n// five\n";
  assert.deepEqual(commentBlocks(text, "c"), [
    [{ line: 1, text: " one" }, { line: 2, text: " two" }, { line: 3, text: " " }],
    [{ line: 4, text: " three" }, { line: 5, text: " four" }],
    [{ line: 7, text: " five" }],
  ]);
});

Deno.test("strings are skipped: quotes, escapes, template literals across lines, Go raw strings", () => {
  const ts = 'a("// no", \'/* no\', "esc \\" // no");\nb(`\n// no\n`);\n// yes\n';
  assert.deepEqual(commentBlocks(ts, "c"), [[{ line: 5, text: " yes" }]]);
  // in Go a backslash in a raw string escapes nothing: the string ends at the next backquote
  const go = "s := `C:\\`\n// yes\n";
  assert.deepEqual(commentBlocks(go, "go"), [[{ line: 2, text: " yes" }]]);
});

Deno.test("Python: docstrings and # runs; a # inside a string is not a comment", () => {
  const py = 'x = "# no"\n# yes\n# also\ndef f():\n    r"""doc\n    more"""\n';
  assert.deepEqual(commentBlocks(py, "python"), [
    [{ line: 2, text: " yes" }, { line: 3, text: " also" }],
    [{ line: 5, text: "doc" }, { line: 6, text: "    more" }],
  ]);
});
