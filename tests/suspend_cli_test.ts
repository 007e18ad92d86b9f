/**
 * `the-loop hooks suspended`, `hooks resume` and `sessions stop` over the records of
 * `<state.root>/suspended/`, the real CLI with no daemon running: the list (text and JSON,
 * against its schema), a resume marked for the next daemon (idempotent), a stop that discards
 * the record and its held deliveries with one event each.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, type CliResult, cliSchema, tree } from "./_test_utils.ts";

const REF = "github:octo/repo#1";
const ID = "github-octo-repo-1-s0a1b2c3d";

function record(held: string[]) {
  return {
    version: 1,
    id: ID,
    workItem: REF,
    point: "work_item_start",
    hook: "licence",
    mode: "wait_for_resume",
    declared: "retry_backoff",
    error: "the licence server is down",
    attempts: 4,
    since: "2026-12-03T10:00:00.000Z",
    context: {},
    commentUrl: "https://github.com/octo/repo/issues/1#issuecomment-9",
    held: held.map((id) => ({
      deliveryId: id,
      heldAt: "2026-12-03T10:00:01.000Z",
      event: { kind: "comment", ghEvent: "issue_comment", deliveryId: id },
    })),
  };
}

function project(): string {
  return tree({
    "c.yaml": `github: { apiUrl: "http://127.0.0.1:9", tokenEnv: SUSPEND_CLI_TOKEN }\n`,
    [`.the-loop/suspended/${ID}.json`]: JSON.stringify(record(["d-1", "d-2"])),
  });
}

const run = (cwd: string, args: string[]) =>
  cli(["-c", "c.yaml", ...args], { cwd, env: { THE_LOOP_ACTOR: "operator" } });

function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

const file = (cwd: string) => join(cwd, ".the-loop", "suspended", `${ID}.json`);

Deno.test("hooks suspended lists the records (text and JSON); nothing says so", async () => {
  const cwd = project();
  const text = ok(await run(cwd, ["hooks", "suspended"])).stdout;
  assert.match(text, new RegExp(`^${ID}  ${REF.replace(/[#/]/g, "\\$&")}$`, "m"));
  assert.match(text, /work_item_start · hook licence · wait_for_resume · since 2026-12-03/);
  assert.match(text, /held: 2 deliveries/);
  assert.match(text, new RegExp(`resume: the-loop hooks resume ${ID}`));
  const doc = JSON.parse(ok(await run(cwd, ["hooks", "suspended", "--format", "json"])).stdout);
  (await cliSchema("hooks-suspended"))(doc);
  assert.equal(doc.suspended[0].declared, "retry_backoff");
  assert.deepEqual(doc.suspended[0].held.map((h: { deliveryId: string }) => h.deliveryId), [
    "d-1",
    "d-2",
  ]);
  await Deno.remove(file(cwd));
  assert.equal(ok(await run(cwd, ["hooks", "suspended"])).stdout, "nothing is suspended\n");
});

Deno.test("hooks resume by id or ref marks the record for the daemon; a second says nothing is suspended once it is gone", async () => {
  const cwd = project();
  const r = ok(await run(cwd, ["hooks", "resume", REF]));
  assert.match(r.stdout, /no daemon answered; the 2 held deliveries go when the daemon starts/);
  const marked = JSON.parse(await Deno.readTextFile(file(cwd)));
  assert.equal(marked.resumed.by, "operator");
  // resumed again (still waiting for a daemon): the mark is kept as it was
  ok(await run(cwd, ["hooks", "resume", ID]));
  assert.deepEqual(JSON.parse(await Deno.readTextFile(file(cwd))).resumed, marked.resumed);
  await Deno.remove(file(cwd));
  const again = ok(await run(cwd, ["hooks", "resume", ID]));
  assert.match(again.stdout, /nothing suspended for .*: nothing to resume/);
});

Deno.test("hooks resume is a person's: refused from inside a session", async () => {
  const cwd = project();
  const r = await cli(["-c", "c.yaml", "hooks", "resume", ID], {
    cwd,
    env: { THE_LOOP_ACTOR: "agent", THE_LOOP_SESSION: "cap" },
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /a person's/);
  assert.equal(JSON.parse(await Deno.readTextFile(file(cwd))).resumed, undefined);
});

Deno.test("sessions stop discards the suspension and its held deliveries, one event each", async () => {
  const cwd = project();
  const r = ok(await run(cwd, ["sessions", "stop", REF, "--no-comment"]));
  assert.match(r.stdout, new RegExp(`discarded suspension ${ID} .*its 2 held deliveries`));
  await assert.rejects(Deno.stat(file(cwd)), Deno.errors.NotFound);
  const log = (await Deno.readTextFile(join(cwd, ".the-loop", "logs", "events.jsonl")))
    .trim().split("\n").map((l) => JSON.parse(l))
    .filter((e) => e.event === "hooks.suspension_discarded");
  assert.deepEqual(log.map((e) => [e.reason, e.held_delivery_id]), [
    ["stop", "d-1"],
    ["stop", "d-2"],
    ["stop", null],
  ]);
});
