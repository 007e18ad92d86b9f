/**
 * `routing.deliver` decided: the defaults leave out what a maintainer would (assignments,
 * milestones, a dismissal, an edit that changed nothing), keep what the agent acts on, tell a
 * recovery from a plain success, and follow the config when it lists more.
 */
import assert from "node:assert/strict";
import type { DeliverConfig } from "../config/mod.ts";
import { ciResultOf, isQuiet, nextCiFailing, type QuietOptions } from "./deliver_policy.ts";
import {
  ciEvent,
  closeEvent,
  comment,
  defaultRouting,
  itemEvent,
  presence,
} from "./_test_utils.ts";
import type { RoutedEvent } from "./types.ts";

const routing = await defaultRouting();
const DEFAULTS: DeliverConfig = routing.deliver;
const OPTS: QuietOptions = { autoExecuteLabel: routing.autoExecuteLabel };

const item = (action: string, o: Partial<RoutedEvent> = {}): RoutedEvent => ({
  ...itemEvent(1, { action }),
  ...o,
});
const ci = (conclusion: string | undefined, o: { status?: string; name?: string } = {}) => {
  const e = ciEvent(1);
  return { ...e, ci: { name: o.name ?? "test", status: o.status, conclusion } };
};

Deno.test("the schema's defaults are the documented ones", () => {
  assert.deepEqual(DEFAULTS, {
    issues: ["opened", "edited", "reopened", "labeled", "unlabeled"],
    pull_request: [
      "opened",
      "edited",
      "reopened",
      "synchronize",
      "ready_for_review",
      "converted_to_draft",
    ],
    pull_request_review: ["submitted"],
    pull_request_review_comment: ["created", "edited"],
    issue_comment: ["created", "edited"],
    ci: ["failed", "recovered"],
    labels: "auto-execute",
  });
});

Deno.test("an issue action not listed is quiet; a listed one is delivered", () => {
  for (
    const action of ["assigned", "unassigned", "milestoned", "pinned", "locked", "transferred"]
  ) {
    assert.equal(isQuiet(item(action), DEFAULTS, OPTS), true, action);
  }
  for (const action of ["opened", "reopened"]) {
    assert.equal(isQuiet(item(action), DEFAULTS, OPTS), false, action);
  }
  const pr = (action: string) => ({ ...item(action), ghEvent: "pull_request" });
  assert.equal(isQuiet(pr("review_request_removed"), DEFAULTS, OPTS), true);
  assert.equal(isQuiet(pr("synchronize"), DEFAULTS, OPTS), false);
  // a pull request's labels are not listed by default
  assert.equal(isQuiet({ ...pr("labeled") }, DEFAULTS, OPTS), true);
});

Deno.test("an issue's edit is delivered only when its title, body or base changed", () => {
  assert.equal(isQuiet(item("edited"), DEFAULTS, OPTS), true, "no changes");
  for (const changed of [{ title: "old" }, { body: "" }, { base: "main" }]) {
    assert.equal(
      isQuiet(item("edited", { changed }), DEFAULTS, OPTS),
      false,
      Object.keys(changed)[0],
    );
  }
  // the poller knows no old values: its edits are delivered as before
  assert.equal(isQuiet(item("edited", { via: "poll" }), DEFAULTS, OPTS), false);
});

Deno.test("a comment's edit is delivered only when its body changed", () => {
  const edited = (o: Partial<RoutedEvent>) => ({
    ...comment(1, "new", { action: "edited" }),
    ...o,
  });
  assert.equal(isQuiet(edited({}), DEFAULTS, OPTS), true, "no changes");
  assert.equal(isQuiet(edited({ changed: { body: "new" } }), DEFAULTS, OPTS), true, "the same");
  assert.equal(isQuiet(edited({ changed: { body: "old" } }), DEFAULTS, OPTS), false);
  assert.equal(isQuiet(edited({ via: "poll" }), DEFAULTS, OPTS), false, "the poller's");
  const review = { ...comment(1, "lgtm"), kind: "review" as const, ghEvent: "pull_request_review" };
  assert.equal(isQuiet({ ...review, action: "dismissed" }, DEFAULTS, OPTS), true);
  assert.equal(isQuiet({ ...review, action: "submitted" }, DEFAULTS, OPTS), false);
  assert.equal(
    isQuiet({ ...review, action: "edited", changed: { body: "x" } }, DEFAULTS, OPTS),
    true,
  );
});

Deno.test("labels: the auto-execute label's changes only, unless labels: any", () => {
  const label = (name: string, action = "labeled") => item(action, { label: name });
  assert.equal(isQuiet(label(routing.autoExecuteLabel), DEFAULTS, OPTS), false);
  assert.equal(isQuiet(label(routing.autoExecuteLabel, "unlabeled"), DEFAULTS, OPTS), false);
  assert.equal(isQuiet(label("bug"), DEFAULTS, OPTS), true);
  assert.equal(isQuiet(label("bug"), { ...DEFAULTS, labels: "any" }, OPTS), false);
  // an empty auto-execute label matches nothing
  assert.equal(isQuiet(label(""), DEFAULTS, { autoExecuteLabel: "" }), true);
});

Deno.test("CI: failures delivered, the first success after one, nothing else by default", () => {
  for (const c of ["failure", "timed_out", "cancelled", "action_required", "startup_failure"]) {
    assert.equal(ciResultOf({ conclusion: c }), "failed", c);
    assert.equal(isQuiet(ci(c), DEFAULTS, OPTS), false, c);
  }
  assert.equal(ciResultOf({ conclusion: "error" }), "failed", "a commit status's error");
  for (const c of ["success", "neutral", "skipped"]) {
    assert.equal(ciResultOf({ conclusion: c }), "succeeded");
  }
  assert.equal(ciResultOf({ status: "in_progress" }), "pending");
  assert.equal(ciResultOf({ conclusion: "pending" }), "pending", "a commit status's pending");
  assert.equal(isQuiet(ci("success"), DEFAULTS, OPTS), true, "a plain success");
  assert.equal(isQuiet(ci(undefined, { status: "queued" }), DEFAULTS, OPTS), true, "pending");
  const failing = { ...OPTS, ciFailing: ["test"] };
  assert.equal(isQuiet(ci("success"), DEFAULTS, failing), false, "recovered");
  assert.equal(isQuiet(ci("success", { name: "lint" }), DEFAULTS, failing), true, "another check");
  const all: DeliverConfig = { ...DEFAULTS, ci: ["succeeded", "pending"] };
  assert.equal(isQuiet(ci("success"), all, OPTS), false);
  assert.equal(isQuiet(ci(undefined), all, OPTS), false);
  assert.equal(isQuiet(ci("failure"), all, OPTS), true, "failures not listed");
});

Deno.test("the failing checks: a failure joins, a success leaves, a pending run keeps them", () => {
  assert.deepEqual(nextCiFailing(ci("failure"), []), ["test"]);
  assert.equal(nextCiFailing(ci("failure"), ["test"]), undefined, "already there");
  assert.deepEqual(nextCiFailing(ci("success"), ["lint", "test"]), ["lint"]);
  assert.equal(nextCiFailing(ci("success"), ["lint"]), undefined);
  assert.equal(nextCiFailing(ci(undefined), ["test"]), undefined);
  assert.equal(nextCiFailing(comment(1, "hi"), []), undefined, "no CI");
  // a check with no name is remembered by its event's name
  const suite = { ...ciEvent(1), ghEvent: "check_suite", ci: { conclusion: "failure" } };
  assert.deepEqual(nextCiFailing(suite, []), ["check_suite"]);
});

Deno.test("closes, presence nudges and events routing.deliver does not list are never quiet", () => {
  const none: DeliverConfig = {
    issues: [],
    pull_request: [],
    pull_request_review: [],
    pull_request_review_comment: [],
    issue_comment: [],
    ci: [],
    labels: "auto-execute",
  };
  assert.equal(isQuiet(closeEvent(1), none, OPTS), false);
  assert.equal(isQuiet(presence(1), none, OPTS), false);
  const thread = { ...item("resolved"), ghEvent: "pull_request_review_thread" };
  assert.equal(isQuiet(thread, none, OPTS), false);
  assert.equal(isQuiet(comment(1, "hi"), none, OPTS), true);
});
