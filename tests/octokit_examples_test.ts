/**
 * GitHub's own payloads as test data: every example of `@octokit/webhooks-examples` (329 of them,
 * api.github.com) goes through the real router and the real sessions dispatcher into a live
 * session of the item it names, with everyone in the payloads authorized (the bots through
 * `authorizedBots`). With the default `routing.deliver`, the quiet actions — assignments,
 * milestones, pins, locks, a transfer, a review request's removal, a dismissed review, labels
 * that are not the auto-execute label, edits that changed nothing, passing or pending CI — are
 * settled `quiet-action` with no runner call; the rest — openings, pushes, comments, submitted
 * reviews, edits that changed the words, failing CI and the first success after it — are
 * delivered. Event types the router does not take are dropped before the dispatcher (fine).
 * Closes go last: they close the sessions, never filtered.
 *
 * @module
 */
import assert from "node:assert/strict";
import examples from "@octokit/webhooks-examples" with { type: "json" };
import { setup } from "../dispatch/_test_utils.ts";
import type { DispatchOutcome } from "../dispatch/mod.ts";
import type { GitHubIssue } from "../github/mod.ts";
import { FakeRouterGitHub, ingress, issue, testRouter } from "../ingress/_test_utils.ts";
import { DEFAULT_EVENTS, Router, type RoutingPolicy } from "../ingress/mod.ts";
import { RegistryDir } from "../state/registry.ts";
import { parseWorkItem } from "../state/work_item.ts";

type Payload = Record<string, unknown> & { action?: string };
interface Example {
  name: string;
  payload: Payload;
}

const ALL: Example[] = (examples as unknown as { name: string; examples: Payload[] }[])
  .flatMap((g) => g.examples.map((payload) => ({ name: g.name, payload })));

const obj = (
  v: unknown,
) => (typeof v === "object" && v !== null ? v as Record<string, unknown> : {});
const isClose = (e: Example) =>
  (e.name === "issues" || e.name === "pull_request") && e.payload.action === "closed";
const CI = new Set(["check_run", "check_suite", "workflow_run", "status"]);

/** Every item exists: a branch-named ref is never dropped as not found. */
class EveryItemExists extends FakeRouterGitHub {
  override getIssue(repo: string, number: number): Promise<GitHubIssue> {
    return Promise.resolve(issue(number, { repo }) as GitHubIssue);
  }
}

/** Everyone who acts or writes in the payloads: people and bots apart. */
function logins(): { users: string[]; bots: string[] } {
  const users = new Set<string>();
  const bots = new Set<string>();
  for (const { payload } of ALL) {
    for (const u of [payload.sender, obj(payload.comment).user, obj(payload.review).user]) {
      const login = obj(u).login;
      if (typeof login !== "string") continue;
      (obj(u).type === "Bot" || login.endsWith("[bot]") ? bots : users).add(login);
    }
  }
  return { users: [...users], bots: [...bots] };
}

/** What the defaults say an example becomes, read from the payload (the issue's rules). */
function expected(e: Example, failing: Map<string, Set<string>>, refs: string[]) {
  const p = e.payload;
  const action = p.action ?? "";
  const changes = obj(p.changes);
  if (action === "deleted" && (e.name === "issue_comment" || e.name.endsWith("review_comment"))) {
    return "comment-deleted";
  }
  if (CI.has(e.name)) {
    const run = obj(p[e.name]);
    const conclusion = String(run.conclusion ?? p.state ?? "");
    const name = String(run.name ?? p.context ?? e.name);
    const failed = [
      "failure",
      "timed_out",
      "cancelled",
      "action_required",
      "startup_failure",
      "error",
    ]
      .includes(conclusion);
    const passed = ["success", "neutral", "skipped"].includes(conclusion);
    let recovered = false;
    for (const ref of refs) {
      const names = failing.get(ref) ?? new Set<string>();
      failing.set(ref, names);
      if (passed && names.delete(name)) recovered = true;
      if (failed) names.add(name);
    }
    return failed || recovered ? "delivered" : "quiet-action";
  }
  const listed: Record<string, string[]> = {
    issues: ["opened", "edited", "reopened"],
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
  };
  if (!listed[e.name]?.includes(action)) return "quiet-action";
  if (action !== "edited") return "delivered";
  if (e.name === "issues" || e.name === "pull_request") {
    return changes.title || changes.body || changes.base ? "delivered" : "quiet-action";
  }
  const before = obj(changes.body).from;
  return typeof before === "string" && before !== obj(p.comment ?? p.review).body
    ? "delivered"
    : "quiet-action";
}

/**
 * The figures with the default `routing.deliver`: of the 84 examples that reach a live session
 * (every one a turn before it), 34 are delivered and 50 are quiet.
 */
const DELIVERED = 34;
const QUIET = 50;

const what = (o: DispatchOutcome) => (o.status === "settled" ? o.reason : o.status);

Deno.test("all 329 octokit examples: quiet actions settle without a turn, the rest are delivered", async () => {
  assert.equal(ALL.length, 329, "the package's api.github.com examples");
  const { users, bots } = logins();
  assert.ok(bots.length > 0, "the examples name bots");
  const policy: RoutingPolicy = {
    events: [...DEFAULT_EVENTS],
    authorizedUsers: users,
    authorizedBots: bots,
    autoExecuteLabel: "the-loop: auto-execute",
  };
  // first, which items the examples reach (the router alone, a recording dispatcher)
  const probe = testRouter({ policy });
  const refsOf = new Map<Example, string[]>();
  for (const e of ALL) {
    const before = probe.dispatcher.events.length;
    await probe.router.route({ ...ingress(e.name, structuredClone(e.payload)) });
    refsOf.set(e, probe.dispatcher.events.slice(before).map((r) => r.workItem.ref));
  }
  const refs = [...new Set([...refsOf.values()].flat())].sort();
  assert.ok(refs.length > 0);

  // then the real dispatcher, a live session for every item the examples reach
  await using t = await setup();
  for (const ref of refs) {
    await t.sessions.register({
      item: parseWorkItem(ref)!,
      harness: "claude",
      harnessSessionId: crypto.randomUUID(),
      cwd: t.dir,
      tmuxTarget: "loop-x",
    });
  }
  const router = new Router({
    dispatcher: t.dispatcher,
    sessions: new RegistryDir(t.registryDir),
    github: new EveryItemExists(),
    events: t.events,
    policy: { ...policy, autoExecuteLabel: t.routing.autoExecuteLabel },
  });
  const counts: Record<string, number> = {};
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  const failing = new Map<string, Set<string>>();
  const mismatches: string[] = [];
  const quietByAction = new Set<string>();
  for (const e of [...ALL.filter((e) => !isClose(e)), ...ALL.filter(isClose)]) {
    const calls = t.runner.calls.length;
    const result = await router.route(ingress(e.name, structuredClone(e.payload)));
    const label = `${e.name} ${e.payload.action ?? ""}`.trim();
    if (result.status === "dropped") {
      count(`dropped ${result.reason}`);
      // everything the dispatcher takes names its item: only the rest is dropped, and never
      // for want of authorization
      assert.notEqual(result.reason, "unauthorized-actor", label);
      assert.equal(refsOf.get(e)!.length, 0, `${label}: routed by the probe`);
      continue;
    }
    const outcomes = result.outcomes.map((o) => what(o.outcome));
    const delta = t.runner.calls.length - calls;
    if (isClose(e)) {
      count("close");
      assert.ok(!outcomes.includes("quiet-action"), `${label}: a close is never quiet`);
      continue;
    }
    const want = expected(e, failing, result.outcomes.map((o) => o.event.workItem.ref));
    for (const got of outcomes) {
      count(got);
      if (got === "quiet-action") quietByAction.add(label);
      if (got !== want) mismatches.push(`${label}: ${got}, expected ${want}`);
    }
    // a quiet action (or a deleted comment) costs no runner call; a delivery one each
    const delivered = outcomes.filter((o) => o === "delivered").length;
    assert.equal(delta, delivered, `${label}: runner calls`);
  }
  console.log("octokit examples:", JSON.stringify(counts));
  assert.deepEqual(mismatches, []);
  // every action the issue names as quiet was seen settled so, none delivered
  for (
    const label of [
      "issues assigned",
      "issues unassigned",
      "issues milestoned",
      "issues demilestoned",
      "issues pinned",
      "issues unpinned",
      "issues locked",
      "issues unlocked",
      "issues transferred",
      "issues edited", // `changes: {}` in every example
      "pull_request review_request_removed",
      "pull_request_review dismissed",
      "check_suite completed", // passing
    ]
  ) assert.ok(quietByAction.has(label), label);
  const quiet = t.events.ofType("dispatch.dropped").filter((d) => d.reason === "quiet-action");
  assert.equal(quiet.length, counts["quiet-action"]);
  assert.equal(t.runner.calls.filter((c) => c.op === "deliver").length, counts["delivered"]);
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 0, "nothing spawned");
  // the figures, pinned: a change to the defaults or to the package shows here
  assert.deepEqual(
    [counts["delivered"], counts["quiet-action"], counts["comment-deleted"], counts["close"]],
    [DELIVERED, QUIET, 3, 2],
  );
  // the rest never reach the dispatcher: event types the router does not take, and CI runs on a
  // branch that names no item
  assert.deepEqual(
    [counts["dropped disabled-event"], counts["dropped no-work-item"]],
    [226, 14],
  );
  for (const ref of refs) {
    if (ref.endsWith("Hello-World#2")) assert.equal(await t.sessions.live(ref), undefined, ref);
  }
});
