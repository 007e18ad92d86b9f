import assert from "node:assert/strict";
import { commandText } from "./mod.ts";
import { withoutQuotesAndCode } from "./command_text.ts";

const K = "the-loop:start-execution";

/** Whether the keyword survives in `markdown`'s command text. */
const counts = (markdown: string) => commandText(markdown).includes(K);

Deno.test("plain text, emphasis, headings and list items count", () => {
  for (
    const md of [
      K,
      `please ${K}.`,
      `**${K}**`,
      `# ${K}`,
      `- ${K}`,
      `1. ${K}`,
      `* one\n* ${K}`,
      `text\n    ${K}`, // an indented line continuing a paragraph is not code
      `- item\n\n  ${K}`, // a list item's second paragraph
      `- item\n      ${K}`, // a list item's paragraph continued with any indentation
      "a lone ` backtick, then " + K,
      "\\`" + K + "\\`", // escaped backticks are no code span
      "```not a fence``` " + K, // a backtick run with a backtick in its info: inline code
    ]
  ) {
    assert.ok(counts(md), JSON.stringify(md));
  }
});

Deno.test("quoted lines do not count, nested or in lists, nor their lazy continuation", () => {
  for (
    const md of [
      `> ${K}`,
      `>${K}`,
      `   > ${K}`,
      `> > ${K}`,
      `> earlier\n> ${K}`,
      `- > ${K}`,
      `> you wrote:\n${K}`, // a lazy continuation: GitHub shows it inside the quote
      `On Monday alice wrote:\n> ${K}\n\nthanks`,
    ]
  ) {
    assert.ok(!counts(md), JSON.stringify(md));
  }
  assert.ok(counts(`> quoted\n\n${K}`), "a blank line ends the quote");
  assert.ok(counts(`> \`\`\`\n> code\n\n${K}`));
});

Deno.test("fenced code blocks do not count: backticks, tildes, info strings, lists", () => {
  for (
    const md of [
      "```\n" + K + "\n```",
      "```md\n" + K + "\n```",
      "``` shell title=x\n" + K + "\n```",
      "~~~\n" + K + "\n~~~",
      "~~~~ text\n" + K + "\n~~~~",
      "````\n```\n" + K + "\n```\n````", // a longer fence holds a shorter one
      "~~~\n```\n" + K + "\n~~~",
      "```\n" + K, // unclosed: runs to the end
      "   ```\n" + K + "\n   ```",
      "- example:\n  ```\n  " + K + "\n  ```",
      "1. example:\n\n   ```md\n   " + K + "\n   ```",
      "- ```\n  " + K + "\n  ```",
      "- a\n  - b\n    ~~~\n    " + K + "\n    ~~~",
      "```\n\n" + K + "\n\n```", // blank lines inside
    ]
  ) {
    assert.ok(!counts(md), JSON.stringify(md));
  }
  assert.ok(counts("```\ncode\n```\n" + K), "after the closing fence");
  assert.ok(counts("````\ncode\n```\n````\n" + K), "a shorter fence does not close a longer one");
  assert.ok(counts("```\ncode\n```   \n" + K), "a closing fence may have trailing spaces");
  assert.ok(!counts("```\ncode\n``` x\n" + K), "a fence with text after it does not close");
  assert.ok(counts("- ```\n  code\n- " + K), "the list item's end closes its fence");
});

Deno.test("indented code blocks do not count, at top level or inside list items", () => {
  for (
    const md of [
      `    ${K}`,
      `\t${K}`,
      `  \t${K}`,
      `example:\n\n    ${K}`,
      `- item\n\n      ${K}`, // 4 columns beyond the item's content
      `-     ${K}`, // a list item starting with indented code
    ]
  ) {
    assert.ok(!counts(md), JSON.stringify(md));
  }
  assert.ok(counts(`    code\n${K}`), "a line back at the margin is text again");
  assert.ok(counts(`- item\n\n    ${K}`), "2 columns beyond the item's content: its paragraph");
});

Deno.test("inline code spans do not count: single and multiple backticks, across lines", () => {
  for (
    const md of [
      "`" + K + "`",
      "run `" + K + "` to start",
      "``" + K + "``",
      "`` a ` " + K + " ``",
      "```" + K + "```",
      "`one\n" + K + "`",
      "- `" + K + "`",
    ]
  ) {
    assert.ok(!counts(md), JSON.stringify(md));
  }
  assert.ok(counts("`x` " + K + " `y`"));
  assert.ok(counts("``x` " + K), "a run closes only with a run of the same length");
  assert.ok(counts("`x\n\n" + K + "`"), "a code span does not cross a paragraph's end");
});

Deno.test("the command text keeps the lines and never glues words together", () => {
  const md = "a\r\n> b\r\n```\r\nc\r\n```\rd `e` f\n    g";
  const out = commandText(md);
  assert.equal(out.split("\n").length, 7);
  assert.equal(out, "a\n\n\n\n\nd     f\n    g", "an indented line continues a paragraph");
  assert.ok(!commandText("the-loop:start`x`-execution").includes(K));
});

Deno.test("thousands of backtick runs: the text after them still counts", () => {
  const md = Array.from({ length: 3000 }, (_, i) => "`".repeat((i % 300) + 1) + "x").join(" ");
  assert.ok(commandText(`${md} ${K}`).endsWith(K));
});

Deno.test("a closed HTML comment does not count: inline, a block, across lines and blank lines", () => {
  for (
    const md of [
      `<!-- ${K} -->`,
      `<!--${K}-->`,
      `ok <!-- ${K} --> thanks`,
      `<!--\n${K}\n-->`,
      `<!-- note\n\n${K}\n\n-->\nok`, // a comment opening a block crosses blank lines
      `text <!-- a\n${K} --> more`, // inside a paragraph it may span its lines
      `- <!-- ${K} -->`,
      `   <!-- ${K} -->`,
      `> quoted\n<!--\n${K}\n-->`, // a comment ends the quote and is no lazy continuation
      `- item\n<!-- ${K} -->`, // nor a list item's lazy continuation
      "<!-- ```\n" + K + " -->", // markup inside opens no fence
      `<!-- a --><!-- ${K} -->`,
      `<!-- \`a --> <!-- ${K} \` -->`, // backticks inside a comment open no code span
    ]
  ) {
    assert.ok(!counts(md), JSON.stringify(md));
  }
  assert.ok(counts(`<!-- note -->\n${K}`), "after the comment's line");
  assert.ok(counts(`<!-- note --> ${K}`), "after the comment on its line");
  assert.ok(counts(`<!--> ${K}`), "`<!-->` is a whole, empty comment");
  assert.ok(counts(`<!---> ${K}`), "`<!--->` is a whole, empty comment");
  assert.ok(counts(`<!-- a -->\n${K} -->`), "a second `-->` is text");
  assert.ok(counts("<!--\n```\n-->\n" + K), "a fence inside a comment opens no code block");
  assert.ok(counts(`<!-- \` --> ${K} \``), "a comment opening first: its backtick opens nothing");
});

Deno.test("an unclosed HTML comment: to the end where a block may start, else literal", () => {
  for (
    const md of [
      `<!-- ${K}`,
      `<!--\n${K}`,
      `<!-- draft\n\n${K}\n\nmore`,
      `  <!-- draft\n${K}`,
      `- <!-- draft\n\n${K}`,
      `para\n<!-- draft\n${K}`, // an HTML block may interrupt a paragraph
      `<!-- a --> <!-- b\n${K}`, // a second comment opened in the block's raw HTML
      `> <!-- draft\n\n${K}`, // a quoted comment is raw HTML too
      `> ok\n> <!-- draft\n\n${K}`,
      `<div><!-- x</div>\n\n${K}`, // raw HTML with a comment open in it
    ]
  ) {
    assert.ok(!counts(md), JSON.stringify(md));
  }
  for (
    const md of [
      `ok <!-- ${K}`, // mid-line: GitHub shows it as text
      `ok <!-- draft\n${K}`,
      `ok <!-- a\n\n${K} -->`, // a paragraph's comment does not cross its end
      `text\n    <!-- ${K}`, // 4 columns: the paragraph's continuation, so inline
      `${K} -->`,
      `> <!-- draft -->\n\n${K}`, // closed in the quote: nothing more hidden
      `<div><!-- x --></div>\n\n${K}`,
    ]
  ) {
    assert.ok(counts(md), JSON.stringify(md));
  }
  assert.equal(commandText(`ok <!-- ${K}`), `ok <!-- ${K}`, "literal, unchanged");
});

Deno.test("an HTML comment in code is code: the code rule decides", () => {
  for (
    const md of [
      "`<!--` " + K + " `-->`",
      "`<!--`\n" + K,
      "```\n<!--\n```\n" + K,
      "    <!--\n\n" + K,
      "`a <!-- ` " + K + " -->", // the code span opens first; `-->` is then text
    ]
  ) {
    assert.ok(counts(md), JSON.stringify(md));
  }
  assert.ok(!counts("<!-- `" + K + "` -->"));
  assert.ok(!counts("```\n-->\n```\n<!-- " + K), "a `-->` in code closes nothing");
});

Deno.test("HTML comments become spaces: the lines kept, no words glued", () => {
  const md = "a<!-- x -->b\r\n<!--\n\nc\n-->d\n`<!--` e <!--f";
  const out = commandText(md);
  assert.equal(out.split("\n").length, 6);
  assert.equal(out, "a          b\n    \n\n \n   d\n       e <!--f");
  assert.ok(!commandText("the-loop:start<!-- x -->-execution").includes(K));
  assert.equal(commandText("<!-- the-loop:approve --> ok"), " ".repeat(26) + "ok");
});

Deno.test("withoutQuotesAndCode keeps HTML comments; each function keeps its own last answer", () => {
  const md = `> q\n\n<!-- ${K} -->\n\`x\``;
  assert.equal(withoutQuotesAndCode(md), `\n\n<!-- ${K} -->\n   `);
  assert.equal(commandText(md), `\n\n${" ".repeat(K.length + 9)}\n   `);
  // asked alternately, neither answers with the other's text
  assert.equal(withoutQuotesAndCode(md), `\n\n<!-- ${K} -->\n   `);
  assert.equal(commandText(md), commandText(md));
  assert.ok(!commandText(md).includes(K));
  assert.ok(withoutQuotesAndCode(md).includes(K));
});

Deno.test("thousands of HTML comments and code spans: the text after them still counts", () => {
  const md = Array.from({ length: 5000 }, (_, i) => i % 2 ? "`<!--`" : "<!-- x `-->").join(" ");
  assert.ok(commandText(`${md} -->\n${K}`).endsWith(K));
});
