// The router through the real GitHub client, against the fake GitHub on loopback: PR linkage over
// GraphQL, the existence check's 404, and a GraphQL failure that must not lose the event.
import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { testClient } from "../github/_test_utils.ts";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { Router } from "./router.ts";
import {
  FakeSessions,
  ingress,
  POLICY,
  pullRequestPayload,
  RecordingDispatcher,
} from "./_test_utils.ts";

const REPO = "octo/repo";

function wire(gh: FakeGitHub) {
  const { gh: client } = testClient(gh.url);
  const dispatcher = new RecordingDispatcher();
  const sink = new MemorySink({ strict: true, source: "gh-webhook" });
  const router = new Router({
    dispatcher,
    github: client,
    sessions: new FakeSessions(),
    events: sink,
    policy: POLICY,
  });
  return { router, dispatcher, sink };
}

Deno.test("closingIssuesReferences come from GitHub, and a branch-invented ref is checked (404)", async () => {
  await using gh = await FakeGitHub.start();
  const issue = gh.world.addIssue(REPO);
  const lib = gh.world.addIssue("octo/lib");
  const pr = gh.world.addPull(REPO, {
    head: "claude/issue-77-x",
    closes: [{ number: issue.number }, { repo: "octo/lib", number: lib.number }],
  });
  const { router, dispatcher, sink } = wire(gh);
  const payload = pullRequestPayload({ number: pr.number, head: "claude/issue-77-x" });
  const result = await router.route(ingress("pull_request", payload, { deliveryId: "gh-1" }));
  assert.equal(result.status, "routed");
  assert.deepEqual(dispatcher.refs, [`github:${REPO}#${issue.number}`]);
  assert.equal(dispatcher.events[0].linkedFrom, `github:${REPO}#${pr.number}`);
  const asked = gh.requests.map((r) => `${r.method} ${r.path} ${r.status}`);
  assert.deepEqual(asked, ["POST /graphql 200", `GET /repos/${REPO}/issues/77 404`]);
  const [dropped] = sink.ofType("routing.linkage_dropped");
  assert.equal(dropped.work_item, `github:${REPO}#77`);
});

Deno.test("a GraphQL failure keeps the event, routed by its closing keywords", async () => {
  await using gh = await FakeGitHub.start();
  const issue = gh.world.addIssue(REPO);
  const pr = gh.world.addPull(REPO, { closes: [{ number: issue.number }] });
  gh.fault({ path: "/graphql", kind: "status", status: 502, times: 20 });
  const { router, dispatcher, sink } = wire(gh);
  const body = `Fixes #${issue.number}`;
  await router.route(ingress("pull_request", pullRequestPayload({ number: pr.number, body })));
  assert.deepEqual(dispatcher.refs, [`github:${REPO}#${issue.number}`]);
  const [warn] = sink.ofType("routing.linkage_unavailable");
  assert.equal(warn.work_item, `github:${REPO}#${pr.number}`);
  assert.match(String(warn.error), /502/);
});
