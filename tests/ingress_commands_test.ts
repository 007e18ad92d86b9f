/**
 * What counts as a command or as the-loop's own, through the router and the sessions dispatcher
 * together: webhook-shaped payloads in, sessions and control records out. A keyword quoted in a
 * reply or shown in a code block starts and stops nothing; an allowlisted person's comment that
 * shows the self-marker in a code block is delivered; an edit by a stranger of alice's start spawns
 * nothing.
 */
import assert from "node:assert/strict";
import { setup } from "../dispatch/_test_utils.ts";
import { markSelfAuthored, SELF_MARKER } from "../github/mod.ts";
import {
  FakeRouterGitHub,
  ingress,
  issueCommentPayload,
  LABEL,
  POLICY,
  user,
} from "../ingress/_test_utils.ts";
import { Router } from "../ingress/mod.ts";
import { RegistryDir } from "../state/registry.ts";

const REF = "github:octo/repo#15";

async function rig() {
  const t = await setup();
  const router = new Router({
    dispatcher: t.dispatcher,
    sessions: new RegistryDir(t.registryDir),
    github: new FakeRouterGitHub(),
    events: t.events,
    policy: POLICY,
  });
  const say = (text: string, opts: { login?: string; edit?: string } = {}) => {
    const payload = issueCommentPayload({ number: 15, text, labels: [LABEL], login: opts.login });
    if (opts.edit) {
      payload.action = "edited";
      payload.sender = user(opts.edit);
      payload.changes = { body: { from: "before" } };
    }
    return router.route(ingress("issue_comment", payload));
  };
  return { t, say };
}

Deno.test("a quoted or fenced start spawns nothing; the real one does", async () => {
  const { t, say } = await rig();
  await using _ = t;
  await say("> the-loop:start-execution\n\nShould I?");
  await say("Write this to start:\n\n```\nthe-loop:start-execution\n```");
  await say("Write `the-loop:start-execution` to start.");
  assert.equal(t.runner.calls.length, 0, "nothing spawned");
  assert.equal(await t.controlStore.get(REF), undefined, "no command recorded");
  await say("the-loop:start-execution");
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`]);
});

Deno.test("a fenced or quoted stop stops nothing: it is delivered as a comment", async () => {
  const { t, say } = await rig();
  await using _ = t;
  await say("the-loop:start-execution");
  await say("To stop it, one writes:\n\n~~~\nthe-loop:stop-execution\n~~~");
  await say("> the-loop:stop-execution\n\nNo, keep going.");
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`, `deliver ${REF}`, `deliver ${REF}`]);
  assert.equal((await t.sessions.live(REF))?.status, "active");
  assert.equal((await t.controlStore.get(REF))?.command, "start");
});

Deno.test("an allowlisted person's comment showing the self-marker in code is theirs", async () => {
  const { t, say } = await rig();
  await using _ = t;
  await say("the-loop:start-execution");
  const shown = `the-loop signs its comments so:\n\n\`\`\`\n${SELF_MARKER}\n\`\`\``;
  await say(shown);
  await say(`it ends its comments with ${SELF_MARKER} and`);
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`, `deliver ${REF}`, `deliver ${REF}`]);
  // the-loop's own words are still its own
  await say(markSelfAuthored("Started a session."));
  assert.equal(t.runner.calls.length, 3);
  const dropped = t.events.ofType("routing.dropped").map((d) => d.reason);
  assert.deepEqual(dropped, ["self-authored"]);
});

Deno.test("a stranger's edit of alice's comment into a start spawns nothing", async () => {
  const { t, say } = await rig();
  await using _ = t;
  await say("the-loop:start-execution", { login: "alice", edit: "mallory" });
  assert.equal(t.runner.calls.length, 0);
  assert.equal(await t.controlStore.get(REF), undefined);
  const [drop] = t.events.ofType("routing.dropped");
  assert.deepEqual([drop.reason, drop.actor, drop.author], [
    "unauthorized-actor",
    "mallory",
    "alice",
  ]);
  // an allowlisted editor's is their start, recorded as theirs
  await say("the-loop:start-execution", { login: "alice", edit: "Bob" });
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`]);
  assert.equal((await t.controlStore.get(REF))?.actor, "Bob");
  assert.match(t.runner.calls[0].prompt!, /^author: @alice$/m);
  assert.match(t.runner.calls[0].prompt!, /^edited by: @Bob$/m);
});
