/**
 * `the-loop sessions start REF --loop NAME` end to end: the real CLI over a real registry folder
 * (no comment posted: `--no-comment`), and `sessions resume` of an item its loop parked.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, tree } from "./_test_utils.ts";
import { advance, BUILTIN_LOOPS, enter, LoopStore } from "../loops/mod.ts";

const REF = "github:octo/repo#1";

function project(extra = ""): string {
  return tree({
    "c.yaml": `github: { apiUrl: "http://127.0.0.1:9", tokenEnv: LOOPCLI_TOKEN }\n${extra}`,
  });
}

const run = (cwd: string, args: string[]) =>
  cli(["-c", "c.yaml", "sessions", ...args, "--no-comment"], {
    cwd,
    env: { THE_LOOP_ACTOR: "alice" },
  });

Deno.test("sessions start --loop NAME keeps the loop in the control record; an unknown one exits 2", async () => {
  const cwd = project();
  const bad = await run(cwd, ["start", REF, "--loop", "pdcl"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /unknown loop "pdcl" \(known: adhoc, pdlc\)/);
  const control = join(cwd, ".the-loop", "sessions", "control", "github-octo-repo-1.json");
  assert.equal(await Deno.stat(control).then(() => true, () => false), false);
  const good = await run(cwd, ["start", REF, "--loop", "pdlc"]);
  assert.equal(good.code, 0, good.stderr);
  const record = JSON.parse(await Deno.readTextFile(control));
  assert.deepEqual([record.command, record.loop], ["start", "pdlc"]);
});

/** A project whose #1 has a paused session, parked at adhoc's work (entered four times). */
async function parked(config = ""): Promise<{ cwd: string; store: LoopStore }> {
  const cwd = project(config);
  const root = join(cwd, ".the-loop");
  const registered = await cli([
    "-c",
    "c.yaml",
    "sessions",
    "register",
    REF,
    "--harness",
    "claude",
    "--session-id",
    "abc-1",
  ], { cwd });
  assert.equal(registered.code, 0, registered.stderr);
  assert.equal((await run(cwd, ["pause", REF])).code, 0);
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  const now = new Date("2026-12-01T10:00:00.000Z");
  let pos = enter(adhoc, { ref: REF, now }).position;
  for (let i = 0; i < 3; i++) {
    pos = advance(adhoc, pos, { outcome: "done", kind: "agent", by: "agent", now }).position;
    pos = advance(adhoc, pos, { outcome: "request-changes", kind: "gate", by: "bob", now })
      .position;
  }
  assert.equal(pos.status, "escalated");
  const store = new LoopStore({ dir: join(root, "loops") });
  await store.put(pos);
  return { cwd, store };
}

/** The session's status as `sessions list --format json` shows it. */
async function sessionStatus(cwd: string): Promise<string> {
  const r = await cli(["-c", "c.yaml", "sessions", "list", "--format", "json"], { cwd });
  return JSON.parse(r.stdout).sessions.find((x: { ref: string }) => x.ref === REF)?.status;
}

Deno.test("sessions resume of an item its loop parked resumes the position: attempts start over", async () => {
  const { cwd, store } = await parked();
  const r = await run(cwd, ["resume", REF]);
  assert.equal(r.code, 0, r.stderr);
  // no daemon runs to tell the agent: said, and the next spawn's prompt gives the assignment
  assert.match(
    r.stderr,
    /no the-loop daemon is running for this state root: the agent of github:octo\/repo#1 is given its assignment when a daemon next spawns its session/,
  );
  const after = await store.get(REF);
  assert.deepEqual([after?.status, after?.attempts.work, after?.history.at(-1)?.kind], [
    "active",
    1,
    "resume",
  ]);
});

Deno.test("sessions resume from inside a the-loop session is refused: an agent cannot lift its own park", async () => {
  const { cwd, store } = await parked();
  const r = await cli(["-c", "c.yaml", "sessions", "resume", REF, "--no-comment"], {
    cwd,
    env: { THE_LOOP_ACTOR: "agent", THE_LOOP_SESSION: "c2Vzc2lvbi1jYXBhYmlsaXR5" },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /sessions resume is a person's: it cannot be run from inside a the-loop session/,
  );
  assert.equal((await store.get(REF))?.status, "escalated");
  assert.equal(await sessionStatus(cwd), "paused");
});

Deno.test("sessions resume of a parked item while the loops do not read changes nothing, exit 1", async () => {
  const broken =
    "loops:\n  x:\n    start: a\n    nodes:\n      a: { actor: agent, next: { done: nowhere } }\n";
  const { cwd, store } = await parked(broken);
  const r = await run(cwd, ["resume", REF]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /is parked by its loop, and the loops do not read.*nothing was changed/);
  assert.match(r.stderr, /c\.yaml:\d+:\d+: .*nowhere/);
  assert.equal((await store.get(REF))?.status, "escalated");
  assert.equal(await sessionStatus(cwd), "paused");
});
