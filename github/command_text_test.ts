import assert from "node:assert/strict";
import { commandText } from "./mod.ts";

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
