/**
 * The excerpt names whose words a prompt carries and who acted on them:
 * an edit of alice's comment by bob says `author: @alice` and `edited by: @bob`.
 */
import assert from "node:assert/strict";
import { payloadExcerpt } from "./_excerpt.ts";
import { comment } from "./_test_utils.ts";

Deno.test("an edit by someone else names the author and the editor", () => {
  const ev = { ...comment(3, "please look", { action: "edited" }), actor: "bob", author: "alice" };
  const excerpt = payloadExcerpt(ev);
  assert.match(excerpt, /^event: issue_comment \(edited\)$/m);
  assert.match(excerpt, /^author: @alice$/m);
  assert.match(excerpt, /^edited by: @bob$/m);
});

Deno.test("a comment as written, or edited by its author, names the author alone", () => {
  for (const action of ["created", "edited"]) {
    const excerpt = payloadExcerpt({ ...comment(3, "please look", { action }), actor: "alice" });
    assert.match(excerpt, /^author: @alice$/m);
    assert.doesNotMatch(excerpt, / by: /);
  }
});
