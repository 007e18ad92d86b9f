import assert from "node:assert/strict";
import { markdownCell, markdownTable } from "./scenarios.ts";

Deno.test("markdownCell: a file's text prints as text in a GitHub table", () => {
  assert.equal(markdownCell("a | b"), "a \\| b");
  assert.equal(
    markdownCell("*x* _y_ ~z~ `c` [l](u)"),
    "\\*x\\* \\_y\\_ \\~z\\~ \\`c\\` \\[l\\](u)",
  );
  assert.equal(markdownCell("<script>&amp;"), "&lt;script&gt;&amp;amp;");
  assert.equal(markdownCell("back\\slash"), "back\\\\slash");
  assert.equal(markdownCell("\x1b[2Jline\nbreak"), "\\\\e\\[2Jline\\\\nbreak");
  assert.equal(markdownCell(""), "-");
});

Deno.test("markdownTable: a header, its rule, one line a row", () => {
  assert.equal(
    markdownTable(["A", "B"], [["1", "2"]]),
    "| A | B |\n| --- | --- |\n| 1 | 2 |\n",
  );
});
