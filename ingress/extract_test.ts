import assert from "node:assert/strict";
import { branchOnly, extractWorkItems } from "./extract.ts";
import {
  checkRunPayload,
  issueCommentPayload,
  issuesPayload,
  pullRequestPayload,
  reviewCommentPayload,
  reviewPayload,
  statusPayload,
  workflowRunPayload,
} from "./_test_utils.ts";

const refs = (ghEvent: string, payload: Record<string, unknown>, closing = []) =>
  extractWorkItems(ghEvent, payload, closing).map((c) => c.item.ref);

Deno.test("issues and issue_comment map to the issue", () => {
  assert.deepEqual(refs("issues", issuesPayload({ number: 15 })), ["github:octo/repo#15"]);
  assert.deepEqual(refs("issue_comment", issueCommentPayload({ number: 15 })), [
    "github:octo/repo#15",
  ]);
});

Deno.test("PR-shaped events put linked issues first, then the PR itself", () => {
  const body = "Fixes #16";
  const head = "claude/github-issue-15-x";
  const want = ["github:octo/repo#15", "github:octo/repo#16", "github:octo/repo#42"];
  assert.deepEqual(refs("pull_request", pullRequestPayload({ number: 42, head, body })), want);
  assert.deepEqual(refs("pull_request_review", reviewPayload({ number: 42, head, body })), want);
  assert.deepEqual(
    refs("pull_request_review_comment", reviewCommentPayload({ number: 42, head, body })),
    want,
  );
});

Deno.test("a PR conversation comment (issue with a pull_request key) is PR-shaped", () => {
  const payload = issueCommentPayload({ number: 42, pr: true, body: "Closes #15" });
  assert.deepEqual(refs("issue_comment", payload), ["github:octo/repo#15", "github:octo/repo#42"]);
});

Deno.test("closingIssuesReferences come first, then the branch, then keywords; deduplicated", () => {
  const payload = pullRequestPayload({
    number: 42,
    head: "issue-15",
    body: "closes #7, fixes #15",
  });
  const closing = [{ repo: "octo/repo", number: 7 }, { repo: "octo/lib", number: 3 }];
  // deno-lint-ignore no-explicit-any
  const got = extractWorkItems("pull_request", payload, closing as any);
  assert.deepEqual(got.map((c) => c.item.ref), [
    "github:octo/repo#7",
    "github:octo/lib#3",
    "github:octo/repo#15",
    "github:octo/repo#42",
  ]);
  assert.deepEqual([...got[0].sources], ["closing-reference", "keyword"]);
  assert.deepEqual([...got[2].sources], ["branch", "keyword"]);
  assert.equal(got[0].linkedFrom, "github:octo/repo#42");
  assert.equal(got[3].linkedFrom, undefined);
});

Deno.test("a cross-repository closing reference routes to that repository", () => {
  const payload = pullRequestPayload({ number: 42, body: "Resolves octo/lib#3" });
  assert.deepEqual(refs("pull_request", payload), ["github:octo/lib#3", "github:octo/repo#42"]);
});

Deno.test("a PR's reference to itself is ignored, in every source", () => {
  const payload = pullRequestPayload({
    number: 42,
    head: "issue-42",
    body: "closes #42, fixes octo/repo#42, fixes https://github.com/octo/repo/issues/42",
  });
  // deno-lint-ignore no-explicit-any
  const closing = [{ repo: "octo/repo", number: 42 }] as any;
  assert.deepEqual(refs("pull_request", payload, closing), ["github:octo/repo#42"]);
  // the same number in another repository is another item
  const other = pullRequestPayload({ number: 42, body: "closes octo/lib#42" });
  assert.deepEqual(refs("pull_request", other), ["github:octo/lib#42", "github:octo/repo#42"]);
});

Deno.test("only a ref named by the branch alone is branch-only", () => {
  const got = extractWorkItems("pull_request", pullRequestPayload({ head: "issue-9" }));
  assert.deepEqual(got.map(branchOnly), [true, false]);
});

Deno.test("CI runs map to their PRs and to issue-N from the head branch", () => {
  assert.deepEqual(
    refs("workflow_run", workflowRunPayload({ headBranch: "issue-15-fix", prs: [42, 43] })),
    ["github:octo/repo#42", "github:octo/repo#43", "github:octo/repo#15"],
  );
  const suite = workflowRunPayload({ event: "check_suite", headBranch: "x/issue/8", prs: [42] });
  assert.deepEqual(refs("check_suite", suite), ["github:octo/repo#42", "github:octo/repo#8"]);
  assert.deepEqual(refs("check_run", checkRunPayload({ headBranch: "issue-5", prs: [42] })), [
    "github:octo/repo#42",
    "github:octo/repo#5",
  ]);
  assert.deepEqual(refs("status", statusPayload(["main", "issue-15-x"])), ["github:octo/repo#15"]);
  assert.deepEqual(refs("workflow_run", workflowRunPayload({ headBranch: "main" })), []);
});

Deno.test("unknown events map to nothing", () => {
  assert.deepEqual(refs("push", { repository: { full_name: "octo/repo" } }), []);
  assert.deepEqual(refs("issues", { action: "opened" }), []);
});

Deno.test("an Enterprise host comes from repository.html_url", () => {
  const web = "https://ghe.example.com";
  const payload = pullRequestPayload({ number: 42, web, body: "Fixes octo/lib#3" });
  assert.deepEqual(refs("pull_request", payload), [
    "github:ghe.example.com/octo/lib#3",
    "github:ghe.example.com/octo/repo#42",
  ]);
});

Deno.test("without repository.html_url, the host comes from the item's html_url", () => {
  const payload = issueCommentPayload({ number: 15, web: "https://GHE.example.com:8443" });
  delete payload.repository.html_url;
  assert.deepEqual(refs("issue_comment", payload), ["github:ghe.example.com:8443/octo/repo#15"]);
  // and with no repository at all, the owner and name come from that URL too
  delete payload.repository;
  assert.deepEqual(refs("issue_comment", payload), ["github:ghe.example.com:8443/octo/repo#15"]);
});

Deno.test("github.com refs carry no host", () => {
  const payload = issuesPayload({ number: 1 });
  delete payload.repository.html_url;
  delete payload.issue.html_url;
  assert.deepEqual(refs("issues", payload), ["github:octo/repo#1"]);
});
