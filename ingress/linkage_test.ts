import assert from "node:assert/strict";
import { closingKeywordRefs, issueFromBranch } from "./linkage.ts";

Deno.test("the head branch names an issue as issue-N or issue/N, in any case", () => {
  assert.equal(issueFromBranch("claude/github-issue-15-x"), 15);
  assert.equal(issueFromBranch("feature/ISSUE/7"), 7);
  assert.equal(issueFromBranch("Issue-3"), 3);
  assert.equal(issueFromBranch("issues15"), undefined);
  assert.equal(issueFromBranch("main"), undefined);
  assert.equal(issueFromBranch(undefined), undefined);
});

Deno.test("every closing keyword form GitHub accepts is read", () => {
  for (
    const [text, want] of [
      ["Closes #15", [{ number: 15 }]],
      ["close #15", [{ number: 15 }]],
      ["closed #15", [{ number: 15 }]],
      ["Fix #15", [{ number: 15 }]],
      ["fixes: #15", [{ number: 15 }]],
      ["FIXED #15", [{ number: 15 }]],
      ["resolve #15", [{ number: 15 }]],
      ["Resolves:#15", [{ number: 15 }]],
      ["resolved GH-15", [{ number: 15 }]],
      ["closes octo/lib#3", [{ number: 3, repo: "octo/lib" }]],
      ["fix https://github.com/octo/lib/issues/9", [{ number: 9, repo: "octo/lib" }]],
      ["fixes https://ghe.example.com/a/b/issues/4#issuecomment-1", [{ number: 4, repo: "a/b" }]],
    ] as const
  ) {
    assert.deepEqual(closingKeywordRefs(text), want, text);
  }
});

Deno.test("text that only looks like a closing keyword is not one", () => {
  for (
    const text of ["prefix #15", "closes#15", "see #15", "unfixed #15", "closes issue 15", "fix #x"]
  ) {
    assert.deepEqual(closingKeywordRefs(text), [], text);
  }
  assert.deepEqual(closingKeywordRefs(null), []);
});

Deno.test("several references are read in order", () => {
  assert.deepEqual(closingKeywordRefs("Fixes #1.\n\nAlso closes #2 and resolves a/b#3"), [
    { number: 1 },
    { number: 2 },
    { number: 3, repo: "a/b" },
  ]);
});
