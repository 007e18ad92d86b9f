import assert from "node:assert/strict";
import { join } from "node:path";
import type { RoutingConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import { Router } from "../ingress/mod.ts";
import {
  FakeRouterGitHub,
  FakeSessions,
  ingress,
  issueCommentPayload,
  issuesPayload,
  POLICY,
  reviewPayload,
} from "../ingress/_test_utils.ts";
import { ControlStore } from "../state/control.ts";
import { JournalDispatcher, readJournal } from "./mod.ts";

const CONTROL: RoutingConfig["control"] = {
  enabled: true,
  requireStartCommand: true,
  keywords: {
    start: "the-loop:start-execution",
    stop: "the-loop:stop-execution",
    pause: "the-loop:pause-execution",
    resume: "the-loop:resume-execution",
  },
  ghBinary: "gh",
};

async function setup(control: () => RoutingConfig["control"] = () => CONTROL) {
  const root = await Deno.makeTempDir({ prefix: "the-loop-journal-" });
  const path = join(root, "logs", "deep", "journal.jsonl");
  const store = new ControlStore(root);
  const journal = new JournalDispatcher({
    path,
    control: store,
    controlConfig: control,
    now: () => new Date(Date.UTC(2026, 0, 1)),
  });
  const router = new Router({
    dispatcher: journal,
    github: new FakeRouterGitHub(),
    sessions: new FakeSessions(),
    events: new MemorySink({ strict: true }),
    policy: POLICY,
  });
  return {
    root,
    path,
    store,
    journal,
    router,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

Deno.test("each dispatch appends one line (directory created) and answers delivered", async () => {
  await using t = await setup();
  const payload = issueCommentPayload({ number: 15, text: "hello there", login: "alice" });
  const result = await t.router.route(ingress("issue_comment", payload, { deliveryId: "d1" }));
  assert.equal(result.status === "routed" && result.outcomes[0].outcome.status, "delivered");
  assert.deepEqual(await readJournal(t.path), [{
    ts: "2026-01-01T00:00:00.000Z",
    delivery_id: "d1",
    work_item: "github:octo/repo#15",
    kind: "comment",
    gh_event: "issue_comment",
    action: "created",
    actor: "alice",
    via: "gh-webhook",
    labeled: false,
    subject_url: payload.comment.html_url,
    text_chars: 11,
    command: null,
  }]);
  assert.equal(await t.store.get("github:octo/repo#15"), undefined);
});

Deno.test("the journal never holds a comment's body", async () => {
  await using t = await setup();
  const text = "SECRET-ISH BODY the-loop:start-execution";
  await t.router.route(ingress("issue_comment", issueCommentPayload({ text })));
  const raw = await Deno.readTextFile(t.path);
  assert.ok(!raw.includes("SECRET-ISH"), raw);
  assert.equal((await readJournal(t.path))[0].text_chars, text.length);
});

Deno.test("a comment carrying one keyword records the command in the control store", async () => {
  await using t = await setup();
  const payload = issueCommentPayload({
    number: 15,
    text: "the-loop:start-execution",
    login: "bob",
  });
  await t.router.route(ingress("issue_comment", payload));
  assert.deepEqual(await t.store.get("github:octo/repo#15"), {
    ref: "github:octo/repo#15",
    command: "start",
    source: "comment",
    actor: "bob",
    requestedAt: "2026-01-01T00:00:00.000Z",
    note: payload.comment.html_url,
  });
  assert.equal(await t.store.startRequested("github:octo/repo#15"), true);
  assert.equal((await readJournal(t.path))[0].command, "start");
  // a review's body counts too
  await t.router.route(
    ingress("pull_request_review", reviewPayload({ text: "the-loop:pause-execution" })),
  );
  assert.equal((await t.store.get("github:octo/repo#42"))?.command, "pause");
});

Deno.test("an ambiguous comment records nothing and says so in the journal", async () => {
  await using t = await setup();
  const text = "the-loop:start-execution or the-loop:stop-execution?";
  await t.router.route(ingress("issue_comment", issueCommentPayload({ number: 15, text })));
  assert.equal(await t.store.get("github:octo/repo#15"), undefined);
  const [entry] = await readJournal(t.path);
  assert.equal(entry.command, null);
  assert.deepEqual(entry.ambiguous, ["start", "stop"]);
});

Deno.test("a keyword inside the issue body is not a command", async () => {
  await using t = await setup();
  const payload = issuesPayload({ number: 15, action: "opened", body: "the-loop:start-execution" });
  await t.router.route(ingress("issues", payload));
  assert.equal(await t.store.get("github:octo/repo#15"), undefined);
  const [entry] = await readJournal(t.path);
  assert.deepEqual([entry.kind, entry.text_chars, entry.command], ["item", 0, null]);
});

Deno.test("the control settings are read on every dispatch (disabled: nothing recorded)", async () => {
  let control = { ...CONTROL, enabled: false };
  await using t = await setup(() => control);
  const text = "the-loop:start-execution";
  await t.router.route(ingress("issue_comment", issueCommentPayload({ number: 15, text })));
  assert.equal(await t.store.get("github:octo/repo#15"), undefined);
  control = CONTROL;
  await t.router.route(ingress("issue_comment", issueCommentPayload({ number: 15, text })));
  assert.equal((await t.store.get("github:octo/repo#15"))?.command, "start");
});

Deno.test("concurrent dispatches leave whole lines", async () => {
  await using t = await setup();
  await Promise.all(
    Array.from(
      { length: 40 },
      (_, i) => t.router.route(ingress("issue_comment", issueCommentPayload({ number: i + 1 }))),
    ),
  );
  const lines = (await Deno.readTextFile(t.path)).trimEnd().split("\n");
  assert.equal(lines.length, 40);
  for (const line of lines) JSON.parse(line);
});

Deno.test("readJournal of a missing file is empty and skips a torn last line", async () => {
  await using t = await setup();
  assert.deepEqual(await readJournal(t.path), []);
  await t.router.route(ingress("issue_comment", issueCommentPayload({})));
  await Deno.writeTextFile(t.path, '{"ts":"2026', { append: true });
  assert.equal((await readJournal(t.path)).length, 1);
});
