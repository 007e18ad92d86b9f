import assert from "node:assert/strict";
import { factsOf } from "./shape.ts";
import {
  checkRunPayload,
  issueCommentPayload,
  issuesPayload,
  pullRequestPayload,
  reviewPayload,
  statusPayload,
  workflowRunPayload,
} from "./_test_utils.ts";

Deno.test("the facts of an issue comment: the repository and the issue it is on", () => {
  const p = issueCommentPayload({ number: 15 });
  assert.deepEqual(factsOf("issue_comment", p), {
    repository: "octo/repo",
    item: { kind: "issue", url: p.issue.html_url, title: "item 15", state: "open" },
  });
});

Deno.test("a comment on a pull request's conversation is on a pull request", () => {
  const facts = factsOf("issue_comment", issueCommentPayload({ number: 42, pr: true }));
  assert.equal(facts.item?.kind, "pull_request");
  assert.equal(facts.item?.url, "https://github.com/octo/repo/pull/42");
});

Deno.test("a pull request event: its head branch, and a label it was given", () => {
  const facts = factsOf(
    "pull_request",
    pullRequestPayload({ number: 42, action: "labeled", label: "ready", head: "issue-7" }),
  );
  assert.deepEqual([facts.item?.kind, facts.item?.branch, facts.label], [
    "pull_request",
    "issue-7",
    "ready",
  ]);
});

Deno.test("a review's state; an issues event's label", () => {
  assert.equal(factsOf("pull_request_review", reviewPayload({})).reviewState, "commented");
  const labeled = factsOf("issues", issuesPayload({ action: "labeled", label: "go" }));
  assert.deepEqual([labeled.item?.kind, labeled.label], ["issue", "go"]);
});

Deno.test("a CI event names no item; its run or status is what it reports", () => {
  const run = factsOf("workflow_run", workflowRunPayload({ headBranch: "issue-3" }));
  assert.equal(run.item, undefined);
  assert.deepEqual(run.ci, { conclusion: "failure", branch: "issue-3" });
  assert.deepEqual(factsOf("check_run", checkRunPayload()).ci, { conclusion: "failure" });
  const status = statusPayload(["main"]);
  status.context = "ci/build";
  status.target_url = "https://ci.example/1";
  assert.deepEqual(factsOf("status", status).ci, {
    name: "ci/build",
    conclusion: "failure",
    url: "https://ci.example/1",
  });
});

Deno.test("a payload naming no repository gives an empty one", () => {
  assert.deepEqual(factsOf("issues", {}), { repository: "", item: { kind: "issue" } });
});

Deno.test("an edit's previous values: title, body, base ref; none without changes", () => {
  const edited = issuesPayload({ action: "edited" });
  assert.equal(factsOf("issues", edited).changed, undefined, "no changes");
  assert.equal(factsOf("issues", { ...edited, changes: {} }).changed, undefined, "changes: {}");
  const changes = { title: { from: "old" }, body: { from: "" }, base: { ref: { from: "dev" } } };
  assert.deepEqual(factsOf("issues", { ...edited, changes }).changed, {
    title: "old",
    body: "",
    base: "dev",
  });
  const comment = {
    ...issueCommentPayload({}),
    action: "edited",
    changes: { body: { from: "a" } },
  };
  assert.deepEqual(factsOf("issue_comment", comment).changed, { body: "a" });
  assert.equal(factsOf("issue_comment", comment).actorIsBot, undefined, "a person");
});
