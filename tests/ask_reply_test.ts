/**
 * Ask and reply beyond the dispatcher: through the router, a stranger's comment on an item whose
 * agent awaits input is not read (the wait stays open) and the allowlisted person's is the
 * answer; and `sessions list` (the real CLI, over a registry file) shows the open question, in
 * JSON by the published schema and in the table.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { setup } from "../dispatch/_test_utils.ts";
import {
  FakeRouterGitHub,
  ingress,
  issueCommentPayload,
  LABEL,
  POLICY,
} from "../ingress/_test_utils.ts";
import { Router } from "../ingress/mod.ts";
import { RegistryDir } from "../state/registry.ts";
import { cli, cliSchema, tree } from "./_test_utils.ts";

const REF = "github:octo/repo#15";

Deno.test("a stranger's comment is not the answer; the allowlisted person's is", async () => {
  await using t = await setup();
  const router = new Router({
    dispatcher: t.dispatcher,
    sessions: new RegistryDir(t.registryDir),
    github: new FakeRouterGitHub(),
    events: t.events,
    policy: POLICY,
  });
  const say = (text: string, login = "alice") =>
    router.route(
      ingress("issue_comment", issueCommentPayload({ number: 15, text, labels: [LABEL], login })),
    );
  await say("the-loop:start-execution");
  const asked = await t.dispatcher.act({ verb: "ask", ref: REF, question: "Ship it?" }, {
    via: "gh-webhook",
  });
  assert.equal(asked.exit, 0, asked.message);
  await say("yes, ship it", "mallory");
  assert.deepEqual(t.runner.ops(), [`spawn ${REF}`], "nothing reached the session");
  assert.equal((await t.sessions.live(REF))?.awaitingInput?.question, "Ship it?");
  assert.ok(t.events.ofType("routing.dropped").some((d) => d.reason === "unauthorized-actor"));
  await say("no, wait for the review", "Bob");
  const prompt = t.runner.calls.at(-1)?.prompt ?? "";
  assert.match(prompt, /^Answer from @Bob to your question "Ship it\?":/);
  assert.match(prompt, /\nno, wait for the review\n/);
  assert.equal((await t.sessions.live(REF))?.awaitingInput, undefined);
});

Deno.test("sessions list shows awaitingInput in JSON (by the schema) and in the table", async () => {
  const cwd = tree({ "c.yaml": "eventLog: { enabled: false }\n" });
  const base = ["-c", "c.yaml", "sessions"];
  for (const ref of ["github:octo/repo#1", "github:octo/repo#2"]) {
    const r = await cli([...base, "register", ref, "--harness", "claude", "--session-id", "s1"], {
      cwd,
    });
    assert.equal(r.code, 0, r.stderr);
  }
  // the agent asked on #1: its record carries the open question
  const file = join(cwd, ".the-loop", "sessions", "github-octo-repo-1.json");
  const record = JSON.parse(await Deno.readTextFile(file));
  const wait = {
    question: "Postgres or SQLite?",
    summary: "which database",
    since: "2026-12-02T10:00:00.000Z",
    commentUrl: "https://github.com/octo/repo/issues/1#issuecomment-9",
  };
  await Deno.writeTextFile(file, JSON.stringify({ ...record, awaitingInput: wait }, null, 2));
  const json = await cli([...base, "list", "--format", "json"], { cwd });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  (await cliSchema("sessions-list"))(doc);
  const rows = doc.sessions as { ref: string; awaitingInput: unknown }[];
  assert.deepEqual(rows.map((s) => [s.ref, s.awaitingInput]), [
    ["github:octo/repo#1", wait],
    ["github:octo/repo#2", null],
  ]);
  const text = await cli([...base, "list"], { cwd });
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.split("\n");
  assert.match(
    lines.find((l) => l.startsWith("github:octo/repo#1")) ?? "",
    /active, awaiting input since 2026-12-02T10:00:00\.000Z/,
  );
  assert.doesNotMatch(lines.find((l) => l.startsWith("github:octo/repo#2")) ?? "", /awaiting/);
});
