/**
 * Ask and reply through the dispatcher, over the in-memory ports: `the-loop ask` records the
 * wait and posts the (hook-rewritten) question; the person's next comment, or `the-loop reply`,
 * reaches the same session framed as the answer and closes the wait; refusals, failures and
 * comments that are not an answer leave it open.
 *
 * @module
 */
import assert from "node:assert/strict";
import { closeEvent, comment, type Setup, setup } from "./_test_utils.ts";
import type { VerbRequest, VerbResult } from "./types.ts";

const START = "the-loop:start-execution";
const REF = "github:octo/repo#1";

/** A verb on #1 (as the control endpoint hands it over). */
type OnOne<R> = R extends VerbRequest ? Omit<R, "ref"> : never;

function act(t: Setup, req: OnOne<VerbRequest>): Promise<VerbResult> {
  return t.dispatcher.act({ ref: REF, ...req } as VerbRequest, { via: "poll" });
}

/** A rig with #1's session running (spawned by a start comment). */
async function running(): Promise<Setup> {
  const t = await setup();
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  return t;
}

/** What was delivered into the session (after its spawn). */
const delivered = (t: Setup) =>
  t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt ?? "");

Deno.test("ask: the hook-rewritten question is recorded on the session, then posted", async () => {
  await using t = await running();
  const told: unknown[] = [];
  t.hooks.answers.waiting_for_input = (ctx) => {
    told.push([ctx.kind, ctx.actor, ctx.node, ctx.question, ctx.summary]);
    ctx.question = "Postgres or SQLite? (@bob knows)";
    ctx.summary = "which database";
  };
  // the wait is on record before the question is posted
  const post = t.github.createComment.bind(t.github);
  let recordedFirst: unknown;
  t.github.createComment = async (repo, number, body) => {
    recordedFirst = (await t.sessions.live(REF))?.awaitingInput?.question;
    return await post(repo, number, body);
  };
  const r = await act(t, { verb: "ask", question: "which db?", summary: "db" });
  assert.equal(r.exit, 0, r.message);
  assert.equal(recordedFirst, "Postgres or SQLite? (@bob knows)");
  assert.match(r.message, /stop and wait: the answer will arrive as a new message/);
  assert.deepEqual(told, [["question", "agent", "", "which db?", "db"]]);
  const url = "https://github.com/octo/repo/issues/1#c1";
  const posted = t.github.comments.at(-1)!;
  assert.equal(posted.number, 1);
  // the agent's words in a code block: GitHub pings no one and renders nothing inside it
  assert.match(posted.body, /\n~~~text\nPostgres or SQLite\? \(@bob knows\)\n~~~\n/);
  assert.match(posted.body, /the-loop reply github:octo\/repo#1/);
  const wait = (await t.sessions.live(REF))?.awaitingInput;
  assert.deepEqual(wait && { ...wait, since: "" }, {
    question: "Postgres or SQLite? (@bob knows)",
    summary: "which database",
    since: "",
    commentUrl: url,
  });
  assert.ok(!Number.isNaN(Date.parse(wait!.since)));
  const [ev] = t.events.ofType("session.awaiting_input");
  assert.deepEqual([ev.question, ev.comment_posted, ev.comment_url, ev.level], [
    "Postgres or SQLite? (@bob knows)",
    true,
    url,
    "info",
  ]);
});

Deno.test("ask: the wait is recorded even when the comment cannot be posted (exit 1)", async () => {
  await using t = await running();
  t.github.failComments = true;
  const r = await act(t, { verb: "ask", question: "May I drop the table?" });
  assert.equal(r.exit, 1);
  assert.match(r.message, /^the question is recorded but could not be posted: HTTP 502/);
  const wait = (await t.sessions.live(REF))?.awaitingInput;
  assert.deepEqual([wait?.question, wait?.summary, wait?.commentUrl], [
    "May I drop the table?",
    "",
    "",
  ]);
  const [ev] = t.events.ofType("session.awaiting_input");
  assert.deepEqual([ev.comment_posted, ev.comment_url, ev.level], [false, null, "warning"]);
  assert.match(String(ev.error), /HTTP 502/);
  // answerable all the same
  t.github.failComments = false;
  assert.equal((await t.dispatcher.dispatch(comment(1, "No."))).status, "delivered");
  assert.match(
    delivered(t).at(-1)!,
    /^Answer from @alice to your question "May I drop the table\?":/,
  );
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined);
});

Deno.test("ask: no live session, or a paused one, exits 1 and posts nothing", async () => {
  await using t = await setup();
  const none = await act(t, { verb: "ask", question: "anyone?" });
  assert.equal(t.github.comments.length, 0);
  assert.equal(none.exit, 1);
  assert.match(none.message, /no live session for github:octo\/repo#1/);
  await t.dispatcher.dispatch(comment(1, START));
  await t.sessions.update(REF, { status: "paused" });
  const announced = t.github.comments.length;
  const paused = await act(t, { verb: "ask", question: "anyone?" });
  assert.equal(paused.exit, 1);
  assert.match(paused.message, /is paused: resume it first/);
  assert.equal(t.github.comments.length, announced, "nothing posted");
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined);
  assert.equal((await act(t, { verb: "ask", question: "  " })).exit, 2);
});

Deno.test("the person's next comment reaches the same session framed as the answer", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Which\ndatabase?" });
  t.hooks.seen.length = 0;
  const out = await t.dispatcher.dispatch(comment(1, "Postgres, ask @bob.\n~~~\nnot a fence"));
  assert.deepEqual(out, { status: "delivered", detail: "delivered" });
  // one input_received, of kind answer (not comment, then answer)
  const asked = t.hooks.seen.filter((s) => s.point === "input_received").map((s) => s.ctx);
  assert.deepEqual(asked.map((c) => [c.kind, c.source, c.actor]), [["answer", "comment", "alice"]]);
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 1, "the same session");
  const prompt = delivered(t).at(-1)!;
  const lines = prompt.split("\n");
  assert.equal(lines[0], 'Answer from @alice to your question "Which database?":');
  assert.match(lines[2], /^UNTRUSTED CONTENT from GitHub/);
  assert.equal(lines[3], "~~~~text", "a fence longer than any run of tildes inside");
  assert.deepEqual(lines.slice(4, 7), ["Postgres, ask @bob.", "~~~", "not a fence"]);
  assert.deepEqual(lines.slice(7, 9), ["~~~~", "END OF UNTRUSTED CONTENT"]);
  assert.match(prompt, /\(the comment: https:\/\/github\.com\/octo\/repo\/issues\/1#issuecomment-/);
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined, "the wait is closed");
  const [ev] = t.events.ofType("session.answered");
  assert.deepEqual([ev.from, ev.actor], ["comment", "alice"]);
  // the next comment is an ordinary one again
  await t.dispatcher.dispatch(comment(1, "thanks"));
  assert.doesNotMatch(delivered(t).at(-1)!, /^Answer from/);
  assert.equal(t.events.ofType("session.answered").length, 1);
});

Deno.test("input_received may rewrite the answer; its refusal leaves the wait open", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  t.hooks.answers.input_received = (ctx) => {
    if (ctx.kind !== "answer") return;
    ctx.proceed = false;
    ctx.reason = "answers go through the lead";
  };
  const before = delivered(t).length;
  const out = await t.dispatcher.dispatch(comment(1, "yes"));
  assert.deepEqual(out, { status: "settled", reason: "input-refused" });
  assert.equal(delivered(t).length, before, "nothing delivered");
  assert.equal(
    t.github.comments.at(-1)!.body.split("\n")[0],
    "⚠️ the-loop did not deliver this to the session: roster: answers go through the lead",
  );
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
  t.hooks.answers.input_received = (ctx) => (ctx.text = `${ctx.text} (relayed)`);
  await t.dispatcher.dispatch(comment(1, "yes"));
  assert.match(delivered(t).at(-1)!, /^Answer from @alice to your question "Ship it\?":/);
  assert.match(delivered(t).at(-1)!, /\nyes \(relayed\)\n/);
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined);
});

Deno.test("a comment by nobody, or an edit, is not the answer: delivered as usual", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  // an edit that changed the words (one that changed nothing is a quiet action)
  const edit = comment(1, "edited words", { action: "edited" });
  await t.dispatcher.dispatch({ ...edit, changed: { body: "first words" } });
  await t.dispatcher.dispatch(comment(1, "no one's words", { actor: null }));
  for (const prompt of delivered(t).slice(-2)) assert.doesNotMatch(prompt, /Answer from/);
  const asked = t.hooks.seen.filter((s) => s.point === "input_received").map((s) => s.ctx.kind);
  assert.deepEqual(asked.slice(-2), ["comment", "comment"]);
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
  assert.equal(t.events.ofType("session.answered").length, 0);
});

Deno.test("an answer whose delivery fails leaves the wait open", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  t.runner.gate = (call) => {
    if (call.op === "deliver") throw new Error("tmux: no server running");
  };
  const out = await t.dispatcher.dispatch(comment(1, "yes"));
  assert.equal(out.status, "failed");
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
  assert.equal(t.events.ofType("session.answered").length, 0);
  t.runner.gate = () => {};
  assert.equal((await t.dispatcher.dispatch(comment(1, "yes"))).status, "delivered");
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined);
});

Deno.test("reply with no live session exits 1 and spawns nothing", async () => {
  await using t = await setup();
  const r = await act(t, { verb: "reply", text: "go on", actor: "carol" });
  assert.deepEqual(r, {
    exit: 1,
    message: "no live session for github:octo/repo#1; a reply never starts one",
  });
  assert.equal(t.runner.calls.length, 0);
  assert.equal(await t.sessions.live(REF), undefined);
  assert.equal(t.hooks.seen.length, 0, "no hook asked");
});

Deno.test("reply to a paused session exits 1 and delivers nothing", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  await t.sessions.update(REF, { status: "paused" });
  const r = await act(t, { verb: "reply", text: "yes", actor: "carol" });
  assert.equal(r.exit, 1);
  assert.match(r.message, /paused: resume it first .*then reply/);
  assert.equal(delivered(t).length, 0);
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
});

Deno.test("reply refused by input_received exits 1 with the hook's reason", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  t.hooks.answers.input_received = (ctx) => {
    ctx.proceed = false;
    ctx.reason = "carol is on leave";
  };
  const r = await act(t, { verb: "reply", text: "yes", actor: "carol" });
  assert.deepEqual(r, { exit: 1, message: "the reply was refused: roster: carol is on leave" });
  const [ctx] = t.hooks.seen.filter((s) => s.point === "input_received").map((s) => s.ctx).slice(
    -1,
  );
  assert.deepEqual([ctx.kind, ctx.source, ctx.actor, ctx.event, ctx.text], [
    "answer",
    "verb",
    "carol",
    "",
    "yes",
  ]);
  assert.equal(delivered(t).length, 0);
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
  const [ev] = t.events.ofType("session.reply_refused");
  assert.deepEqual([ev.actor, ev.hook, ev.reason], ["carol", "roster", "carol is on leave"]);
});

Deno.test("reply answers the open question, framed, and closes the wait", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  t.hooks.answers.input_received = (ctx) => (ctx.text = "yes, after the tests pass");
  const r = await act(t, { verb: "reply", text: "yes", actor: "@carol" });
  assert.equal(r.exit, 0, r.message);
  assert.match(r.message, /as the answer to its question/);
  const prompt = delivered(t).at(-1)!;
  assert.match(
    prompt,
    /^Answer from @carol to your question "Ship it\?":\n\nUNTRUSTED CONTENT from `the-loop reply`/,
  );
  assert.match(prompt, /\n~~~text\nyes, after the tests pass\n~~~\nEND OF UNTRUSTED CONTENT$/);
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined);
  const [ev] = t.events.ofType("session.answered");
  assert.deepEqual([ev.from, ev.actor], ["verb", "@carol"]);
});

Deno.test("reply with no open question is delivered as a reply", async () => {
  await using t = await running();
  const r = await act(t, { verb: "reply", text: "also update the docs", actor: "carol" });
  assert.equal(r.exit, 0, r.message);
  assert.match(delivered(t).at(-1)!, /^Reply from @carol:\n/);
  assert.equal(t.events.ofType("session.reply_sent").length, 1);
  assert.equal(t.events.ofType("session.answered").length, 0);
});

Deno.test("reply whose delivery fails exits 1 with the reason; the wait stays open", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  t.runner.gate = (call) => {
    if (call.op === "deliver") throw new Error("tmux: no server running");
  };
  const r = await act(t, { verb: "reply", text: "yes", actor: "carol" });
  assert.equal(r.exit, 1);
  assert.match(r.message, /^the reply was not delivered: .*tmux: no server running/);
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
});

Deno.test("closing the work item closes its session's open question with it", async () => {
  await using t = await running();
  await act(t, { verb: "ask", question: "Ship it?" });
  await t.dispatcher.dispatch(closeEvent(1));
  const record = await t.sessions.get(REF);
  assert.equal(record?.status, "closed");
  assert.equal(record?.awaitingInput, undefined);
});

Deno.test("a session with the-loop on its PATH is told to ask with `the-loop ask`; one without, in a comment", async () => {
  for (const withVerbs of [true, false]) {
    await using t = await setup(
      withVerbs ? { sessionEnv: (ref) => ({ THE_LOOP_WORK_ITEM: ref }) } : {},
    );
    await t.dispatcher.dispatch(comment(1, "the-loop:start-execution"));
    const boot = t.runner.calls[0].prompt!;
    if (withVerbs) assert.match(boot, /run `the-loop ask --question "\.\.\."` from this session/);
    else assert.match(boot, /ask it in a comment on github:octo\/repo#1/);
  }
});
