import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { refuserOf, Runner } from "../lifecycle/mod.ts";
import { entryOf, fakeExecutor } from "../lifecycle/_test_utils.ts";
import { comment, setup } from "./_test_utils.ts";

const START = "the-loop:start-execution";
const REF = "github:octo/repo#1";

Deno.test("the call sites are asked in order: input, start, spawn, spawned", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(t.hooks.points(), [
    "input_received",
    "work_item_start",
    "session_spawn",
    "session_spawned",
  ]);
  const [input, start, spawn, spawned] = t.hooks.seen.map((s) => s.ctx);
  assert.deepEqual([input.kind, input.command, input.source, input.actor], [
    "command",
    "start",
    "comment",
    "alice",
  ]);
  assert.deepEqual([start.command, start.actor, start.harness], ["start", "alice", "claude"]);
  assert.equal((start.work_item as { ref: string }).ref, REF);
  assert.equal(spawn.respawn, false);
  assert.match(String(spawn.prompt), /\/the-loop:work-on github:octo\/repo#1/);
  assert.equal(spawned.tmux_target, "loop-github-octo-repo-1");
  assert.equal(spawned.harness_session_id, "00000000-0000-4000-8000-000000000001");
});

Deno.test("work_item_start refusal: disarmed, one marked comment, settled, nothing spawned", async () => {
  await using t = await setup();
  t.hooks.answers.work_item_start = (ctx) => {
    ctx.proceed = false;
    ctx.reason = "not on the roster";
  };
  const out = await t.dispatcher.dispatch(comment(1, START));
  assert.deepEqual(out, { status: "settled", reason: "hook-refused" });
  assert.equal(t.runner.calls.length, 0);
  assert.equal(t.github.comments.length, 1);
  assert.equal(t.github.comments[0].body, "⚠️ the-loop did not start: roster: not on the roster");
  assert.equal(await t.controlStore.get(REF), undefined, "disarmed");
  const [refused] = t.events.ofType("dispatch.hook_refused");
  assert.deepEqual([refused.point, refused.hook], ["work_item_start", "roster"]);
  // the next event does not spawn; a new start asks the hook again (a new arming)
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, "hello")), {
    status: "settled",
    reason: "awaiting-start",
  });
  delete t.hooks.answers.work_item_start;
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(t.hooks.points().filter((p) => p === "work_item_start").length, 2);
});

Deno.test("work_item_start is asked once per arming, again after a stop", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  await t.dispatcher.dispatch(comment(1, START)); // a start on a running session: a no-op
  await t.dispatcher.dispatch(comment(1, "the-loop:stop-execution"));
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal(t.hooks.points().filter((p) => p === "work_item_start").length, 2);
  assert.equal(t.runner.calls.filter((c) => c.op === "spawn").length, 2);
});

Deno.test("session_spawn's prompt reaches the runner; its refusal prevents the launch", async () => {
  await using t = await setup();
  t.hooks.answers.session_spawn = (ctx) => (ctx.prompt = "Boot text from the hook.");
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal(t.runner.calls[0].prompt, "Boot text from the hook.");
  await using u = await setup();
  u.hooks.answers.session_spawn = (ctx) => {
    ctx.proceed = false;
    ctx.reason = "quota exhausted";
  };
  assert.deepEqual(await u.dispatcher.dispatch(comment(1, START)), {
    status: "settled",
    reason: "hook-refused",
  });
  assert.equal(u.runner.calls.length, 0);
  assert.equal(await u.sessions.live(REF), undefined);
  assert.deepEqual(u.github.comments.map((c) => c.body), [
    "⚠️ the-loop did not launch a session: roster: quota exhausted",
  ]);
});

Deno.test("session_spawned's announce: false skips the announcement", async () => {
  await using t = await setup();
  t.hooks.answers.session_spawned = (ctx) => (ctx.announce = false);
  await t.dispatcher.dispatch(comment(1, START));
  assert.equal(t.github.comments.length, 0);
  assert.equal(t.events.ofType("session.announced").length, 0);
  assert.equal(t.events.ofType("session.spawned").length, 1);
});

Deno.test("input_received rewrites what the session is shown, on a copy", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  t.hooks.answers.input_received = (ctx) => {
    if (ctx.kind === "comment") ctx.text = "[redacted by policy]";
  };
  const ev = comment(1, "my password is hunter2");
  await t.dispatcher.dispatch(ev);
  const prompt = t.runner.calls[1].prompt!;
  assert.match(prompt, /\[redacted by policy\]/);
  assert.doesNotMatch(prompt, /hunter2/);
  assert.equal(ev.text, "my password is hunter2", "the event itself is untouched");
});

Deno.test("input_received refusal of a comment: not delivered, one marked comment, settled", async () => {
  await using t = await setup();
  await t.dispatcher.dispatch(comment(1, START));
  t.hooks.answers.input_received = (ctx) => {
    ctx.proceed = false;
    ctx.reason = "off-topic";
  };
  const ev = comment(1, "tell me a joke");
  assert.deepEqual(await t.dispatcher.dispatch(ev), { status: "settled", reason: "input-refused" });
  assert.equal(t.runner.calls.length, 1);
  assert.equal(t.github.comments.length, 2); // the announcement, then the refusal comment
  assert.equal(
    t.github.comments[1].body,
    `⚠️ the-loop did not deliver this to the session: roster: off-topic\n\n(about ${
      ev.subject!.url
    })`,
  );
  assert.deepEqual(t.github.contents(), ["eyes", "hooray"], "no reaction for the refused one");
});

Deno.test("input_received refusal of a command: control.rejected input-refused, nothing applied", async () => {
  await using t = await setup();
  t.hooks.answers.input_received = (ctx) => {
    ctx.proceed = false;
    ctx.reason = "commands are frozen";
  };
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
    status: "settled",
    reason: "input-refused",
  });
  const [rejected] = t.events.ofType("control.rejected");
  assert.deepEqual([rejected.reason, rejected.detail, rejected.command], [
    "input-refused",
    "commands are frozen",
    "start",
  ]);
  assert.equal(await t.controlStore.get(REF), undefined);
  assert.equal(t.runner.calls.length, 0);
  assert.equal(t.github.comments.length, 0);
});

Deno.test("a hook engine that throws cannot crash the dispatch", async () => {
  await using t = await setup();
  t.hooks.answers.session_spawn = () => {
    throw new Error("engine bug");
  };
  assert.equal((await t.dispatcher.dispatch(comment(1, START))).status, "delivered");
  assert.equal(t.events.ofType("dispatch.hook_error")[0].point, "session_spawn");
});

Deno.test("with the real hook runner, the refusing hook is named in the comment", async () => {
  const sink = new MemorySink();
  const runner = new Runner({
    entries: [
      { entry: entryOf("pass"), executor: fakeExecutor("pass", () => ({ answer: null })) },
      {
        entry: entryOf("audit"),
        executor: fakeExecutor("audit", () => ({
          answer: { proceed: false, reason: "mallory is not on the roster" },
        }), { on: ["work_item_start"] }),
      },
    ],
    sink,
  });
  await using t = await setup({
    hooks: { run: (point, ctx) => runner.run(point, ctx), refuserOf },
  });
  assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
    status: "settled",
    reason: "hook-refused",
  });
  assert.deepEqual(t.github.comments.map((c) => c.body), [
    "⚠️ the-loop did not start: audit: mallory is not on the roster",
  ]);
  assert.equal(sink.ofType("hooks.refused")[0].hook, "audit");
  assert.equal(refuserOf({}), undefined);
});
