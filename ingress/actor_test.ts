/**
 * Bots are authorized only through `routing.authorizedBots`: a `[bot]` login or a `type: "Bot"`
 * user listed in `authorizedUsers` is still dropped as unauthorized, through the router too; a
 * bot's edit of a person's words and a person's edit of a bot's words need both lists.
 */
import assert from "node:assert/strict";
import { actorsOf, areAuthorized, isAuthorized, isBotLogin } from "./actor.ts";
import { factsOf } from "./shape.ts";
import { ingress, issueCommentPayload, issuesPayload, testRouter, user } from "./_test_utils.ts";

Deno.test("a bot login is told by its [bot] suffix", () => {
  assert.equal(isBotLogin("dependabot[bot]"), true);
  assert.equal(isBotLogin("Renovate[BOT] "), true);
  assert.equal(isBotLogin("botanist"), false);
});

Deno.test("a bot is authorized only through authorizedBots", () => {
  const bot = "dependabot[bot]";
  assert.equal(isAuthorized("issue_comment", bot, [bot]), false, "listed as a user");
  assert.equal(isAuthorized("issue_comment", bot, [], { authorizedBots: [bot] }), true);
  assert.equal(isAuthorized("issue_comment", bot, [], { authorizedBots: ["Dependabot"] }), true);
  // a `type: Bot` login without the suffix is a bot too
  assert.equal(isAuthorized("issue_comment", "ci-app", ["ci-app"], { isBot: true }), false);
  assert.equal(
    isAuthorized("issue_comment", "ci-app", [], { isBot: true, authorizedBots: ["ci-app"] }),
    true,
  );
  // a person is not authorized through authorizedBots
  assert.equal(isAuthorized("issue_comment", "alice", [], { authorizedBots: ["alice"] }), false);
  // CI events carry no actor: they pass whoever sent them
  assert.equal(isAuthorized("check_suite", "octocoders-linter[bot]", []), true);
});

Deno.test("the actor's and the author's bot flags come from the user objects", () => {
  const p = issueCommentPayload({ login: "helper[bot]" });
  const who = actorsOf("issue_comment", p);
  assert.deepEqual(who, {
    actor: "helper[bot]",
    author: "helper[bot]",
    actorIsBot: true,
    authorIsBot: true,
  });
  assert.equal(factsOf("issue_comment", p).actorIsBot, true);
  // a person's edit of a bot's words: the person acted (the router records them)
  const edit = { ...p, action: "edited", sender: user("alice") };
  assert.deepEqual(actorsOf("issue_comment", edit), {
    actor: "alice",
    author: "helper[bot]",
    authorIsBot: true,
  });
  assert.equal(factsOf("issue_comment", edit).actorIsBot, undefined);
  assert.equal(areAuthorized("issue_comment", actorsOf("issue_comment", edit), ["alice"]), false);
  assert.equal(
    areAuthorized("issue_comment", actorsOf("issue_comment", edit), ["alice"], ["helper[bot]"]),
    true,
  );
  const typed = issuesPayload({ sender: "app" });
  typed.sender.type = "Bot";
  assert.equal(actorsOf("issues", typed).actorIsBot, true);
});

Deno.test("the router drops a bot listed in authorizedUsers and routes one in authorizedBots", async () => {
  const bot = "renovate[bot]";
  const payload = () => issueCommentPayload({ login: bot, text: "bump" });
  const users = testRouter({ policy: { authorizedUsers: ["alice", bot] } });
  const dropped = await users.router.route(ingress("issue_comment", payload()));
  assert.deepEqual(dropped, { status: "dropped", reason: "unauthorized-actor", actor: bot });
  assert.equal(users.dispatcher.events.length, 0);
  const bots = testRouter({ policy: { authorizedUsers: ["alice"], authorizedBots: [bot] } });
  const routed = await bots.router.route(ingress("issue_comment", payload()));
  assert.equal(routed.status, "routed");
  assert.equal(bots.dispatcher.events[0].actorIsBot, true);
});
