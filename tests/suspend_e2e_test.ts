/**
 * Parked operations end to end, through the real `poll start` against the fake GitHub, real
 * tmux and fake `claude`s: a command hook declared `onError: suspend` at `work_item_start` that
 * breaks parks the start (the record, one comment, `hooks suspended` lists it); comments
 * arriving meanwhile are held; a SIGKILL and a restart keep the suspension (not a second one);
 * `hooks resume` spawns the session once and the held comments follow in order. `retry_backoff`
 * recovers from a hook that fails twice without parking; `wait_then_retry` runs the hook once
 * more when an authorized comment resumes it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LoopsE2E, ok, START, waitFor } from "./_loops_e2e_utils.ts";
import { cliSchema } from "./_test_utils.ts";

/**
 * The hook: counts its calls in the file its first argument names and fails (exit 1) while the
 * count is at most its second argument.
 */
const GATE = `#!/usr/bin/env python3
import json, sys
json.load(sys.stdin)
path, fails = sys.argv[1], int(sys.argv[2])
try:
    n = int(open(path).read() or "0")
except FileNotFoundError:
    n = 0
n += 1
open(path, "w").write(str(n))
if n <= fails:
    sys.stderr.write("the licence server is down (call %d)\\n" % n)
    sys.exit(1)
`;

async function project(policy: string, fails: number) {
  const counter = "gate-calls.txt";
  const fx = await LoopsE2E.open({
    extraConfig: `  - name: licence
    command: [./hooks/gate.py, ${counter}, "${fails}"]
    on: [work_item_start]
    onError: suspend
${policy}`,
  });
  await Deno.writeTextFile(join(fx.root, "hooks", "gate.py"), GATE, { mode: 0o755 });
  const calls = async () => {
    try {
      return Number(await Deno.readTextFile(join(fx.root, counter)));
    } catch {
      return 0;
    }
  };
  return { fx, calls };
}

/** `hooks suspended --format json` (checked against its schema). */
async function suspended(fx: LoopsE2E): Promise<Record<string, unknown>[]> {
  const r = ok(await fx.cli(["hooks", "suspended", "--format", "json"]));
  const doc = JSON.parse(r.stdout);
  (await cliSchema("hooks-suspended"))(doc);
  return doc.suspended;
}

Deno.test("poll: a suspend hook parks the start; held comments survive a SIGKILL; hooks resume spawns once and delivers them in order", async () => {
  const { fx, calls } = await project("    suspendMode: wait_for_resume", 99);
  try {
    let d = await fx.poll();
    const n = fx.openIssue();
    fx.gh.world.addComment("octo/repo", n, START, "alice");
    await d.step();
    let listed: Record<string, unknown>[] = [];
    await waitFor("the suspension", async () => (listed = await suspended(fx)).length === 1);
    const id = String(listed[0].id);
    assert.equal(listed[0].point, "work_item_start");
    assert.equal(listed[0].hook, "licence");
    assert.match(String(listed[0].error), /licence server is down/);
    const parkedComment = fx.own(n).filter((c) => c.body.includes("⏸️"));
    assert.equal(parkedComment.length, 1, JSON.stringify(fx.own(n)));
    assert.ok(parkedComment[0].body.includes(`the-loop hooks resume ${id}`));
    const text = ok(await fx.cli(["hooks", "suspended"])).stdout;
    assert.ok(text.includes(id) && text.includes("licence"), text);

    fx.gh.world.addComment("octo/repo", n, "first: rename FIX-1111", "alice");
    fx.gh.world.addComment("octo/repo", n, "second: then FIX-2222", "alice");
    await d.step();
    await waitFor(
      "two comments held",
      async () => ((await suspended(fx))[0]?.held as unknown[] ?? []).length === 3,
      () => suspended(fx),
    );
    assert.equal((await fx.harness()).filter((e) => e.event === "boot").length, 0);

    // SIGKILL and a restart: the same suspension waits; nothing parks twice
    await d.kill();
    d = await fx.poll();
    await d.step();
    const after = await suspended(fx);
    assert.deepEqual(after.map((s) => [s.id, (s.held as unknown[]).length]), [[id, 3]]);
    assert.equal(await calls(), 1, "the hook was not asked again");

    const r = ok(await fx.cli(["hooks", "resume", id, "--as", "operator"]));
    assert.match(r.stdout, new RegExp(`resumed ${id}`));
    const inputs = async () =>
      (await fx.harness()).filter((e) => e.event === "input").map((e) => e.line ?? "");
    await waitFor(
      "both held comments in the session",
      async () => (await inputs()).some((l) => l.includes("FIX-2222")),
      inputs,
    );
    const lines = await inputs();
    const first = lines.findIndex((l) => l.includes("FIX-1111"));
    const second = lines.findIndex((l) => l.includes("FIX-2222"));
    assert.ok(first >= 0 && first < second, JSON.stringify(lines));
    assert.equal((await fx.harness()).filter((e) => e.event === "boot").length, 1, "spawned once");
    await waitFor("the record gone", async () => (await suspended(fx)).length === 0);
    assert.equal(await calls(), 1, "wait_for_resume: not run again");
    // idempotent: a second resume says there is nothing
    const again = ok(await fx.cli(["hooks", "resume", id, "--as", "operator"]));
    assert.match(again.stdout, /nothing suspended/);
    const events = await fx.events();
    assert.equal(events.filter((e) => e.event === "hooks.suspended").length, 1);
    assert.equal(events.filter((e) => e.event === "dispatch.held").length, 2);
  } finally {
    await fx.close();
  }
});

Deno.test("poll: retry_backoff recovers from a hook that fails twice, without parking", async () => {
  const { fx, calls } = await project(
    "    suspendMode: retry_backoff\n    retryBackoffMs: [10, 20, 40]",
    2,
  );
  try {
    const d = await fx.poll();
    const n = fx.openIssue();
    fx.gh.world.addComment("octo/repo", n, START, "alice");
    await d.step();
    await waitFor(
      "the session",
      async () => (await fx.harness()).some((e) => e.event === "boot"),
    );
    assert.equal(await calls(), 3);
    const events = await fx.events();
    assert.equal(events.filter((e) => e.event === "hooks.retrying").length, 2);
    assert.equal(events.filter((e) => e.event === "hooks.suspended").length, 0);
    assert.deepEqual(await suspended(fx), []);
  } finally {
    await fx.close();
  }
});

Deno.test("poll: wait_then_retry runs the hook once more when an authorized comment resumes it", async () => {
  const { fx, calls } = await project("    suspendMode: wait_then_retry", 1);
  try {
    const d = await fx.poll();
    const n = fx.openIssue();
    fx.gh.world.addComment("octo/repo", n, START, "alice");
    await d.step();
    await waitFor("the suspension", async () => (await suspended(fx)).length === 1);
    fx.gh.world.addComment("octo/repo", n, "the-loop:resume-execution", "alice");
    await d.step();
    await waitFor(
      "the session",
      async () => (await fx.harness()).some((e) => e.event === "boot"),
    );
    assert.equal(await calls(), 2, "run once more on resume");
    await waitFor("the record gone", async () => (await suspended(fx)).length === 0);
  } finally {
    await fx.close();
  }
});
