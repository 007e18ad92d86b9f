import assert from "node:assert/strict";
import { ATTRIBUTION, isSelfAuthored, markSelfAuthored, SELF_MARKER } from "./mod.ts";

Deno.test("markSelfAuthored stamps the attribution and the marker, once", () => {
  const once = markSelfAuthored("Done.\n\n");
  assert.equal(once, `Done.\n\n${ATTRIBUTION}\n${SELF_MARKER}\n`);
  assert.equal(markSelfAuthored(once), once);
  assert.ok(isSelfAuthored(once));
  assert.ok(!isSelfAuthored("Done."));
  assert.ok(!isSelfAuthored(null));
  assert.equal(markSelfAuthored(""), `${ATTRIBUTION}\n${SELF_MARKER}\n`);
});

Deno.test("the marker counts only on its own last line, outside quotes and code", () => {
  assert.ok(isSelfAuthored(`Done.\r\n\r\n${ATTRIBUTION}\r\n${SELF_MARKER}\r\n`), "CRLF");
  assert.ok(isSelfAuthored(`Done.\n${SELF_MARKER}  \n\n`), "trailing whitespace");
  // the marker is an HTML comment: the rule that hides keywords in one does not hide it
  assert.ok(isSelfAuthored(`Done.\n<!-- a note -->\n\n${ATTRIBUTION}\n${SELF_MARKER}\n`));
  for (
    const body of [
      `the-loop marks its comments with ${SELF_MARKER}, see`,
      `${SELF_MARKER}\n\nplease look`, // not where the-loop writes it: the body's end
      `please look ${SELF_MARKER}`,
      `it wrote:\n\n\`\`\`\n${ATTRIBUTION}\n${SELF_MARKER}\n\`\`\``,
      `it wrote:\n\n\`\`\`\n${ATTRIBUTION}\n${SELF_MARKER}`, // an unclosed fence
      `it wrote:\n\n> ${ATTRIBUTION}\n> ${SELF_MARKER}`,
      `it wrote:\n> Done.\n${SELF_MARKER}`, // the quote's lazy continuation
      `it wrote:\n\n    ${SELF_MARKER}`,
      `it wrote \`${SELF_MARKER}\``,
      `\`\`\nx\n${SELF_MARKER}\`\``,
    ]
  ) {
    assert.ok(!isSelfAuthored(body), JSON.stringify(body));
  }
  // a body that only mentions the marker is marked at its end
  const quoted = `see \`${SELF_MARKER}\``;
  assert.equal(markSelfAuthored(quoted), `${quoted}\n\n${ATTRIBUTION}\n${SELF_MARKER}\n`);
});
