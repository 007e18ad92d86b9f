/**
 * The one relaunch: a tmux harness killed between two comments is started again by the
 * dispatcher alone, after asking `session_spawn` — here a real command hook run by the real hook
 * runner, which records every call and refuses while told to — and a refusal stops it (nothing
 * launched, the refusal commented and settled as any other). Real tmux (a private server), the
 * real dispatcher, the fake harness.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../events/mod.ts";
import { createCommandExecutor, refuserOf, Runner } from "../lifecycle/mod.ts";
import { entryOf } from "../lifecycle/_test_utils.ts";
import { type HarnessLogEntry, waitForHarnessLog } from "../tests/fake_harness/mod.ts";
import { comment, setup } from "./_test_utils.ts";
import { tmuxSetup, waitAlive } from "./runners/_test_utils.ts";

const START = "the-loop:start-execution";

/** Appends each call (one JSON object on stdin) to calls.jsonl; refuses while `refuse` exists. */
const HOOK = `#!/bin/sh
{ cat; echo; } >> calls.jsonl
if [ -e refuse ]; then echo "no relaunch while the pane is under repair" >&2; exit 2; fi
`;

interface HookCall {
  point: string;
  context: { respawn: boolean; prompt: string };
}

async function hookCalls(dir: string): Promise<HookCall[]> {
  const text = await Deno.readTextFile(join(dir, "calls.jsonl")).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as HookCall);
}

const boots = (entries: HarnessLogEntry[]) => entries.filter((e) => e.event === "boot");

Deno.test("a tmux harness killed between two comments is relaunched only after session_spawn, and a refusal stops the relaunch", async () => {
  const rig = await tmuxSetup({ control: true });
  await Deno.writeTextFile(join(rig.dir, "spawn_guard.sh"), HOOK);
  const sink = new MemorySink();
  const hooks = new Runner({
    entries: [{
      entry: entryOf("spawn-guard"),
      executor: createCommandExecutor({
        name: "spawn-guard",
        argv: ["sh", "spawn_guard.sh"],
        cwd: rig.dir,
        on: ["session_spawn"],
      }),
    }],
    sink,
  });
  try {
    await using t = await setup({
      harnessRunner: rig.runner,
      hooks: { run: (point, ctx) => hooks.run(point, ctx), refuserOf },
    });
    const s = rig.session(1);
    const kill = async (boot: HarnessLogEntry) => {
      Deno.kill(boot.pid, "SIGKILL");
      await waitAlive(() => rig.alive(s), false);
    };

    assert.deepEqual(await t.dispatcher.dispatch(comment(1, START)), {
      status: "delivered",
      detail: "spawned",
    });
    const [first] = boots(await waitForHarnessLog(rig.harnessLog, (e) => boots(e).length === 1));
    assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the first comment")), {
      status: "delivered",
      detail: "delivered",
    });
    await waitForHarnessLog(rig.harnessLog, (e) => e.some((x) => x.line === "the first comment"));

    // killed between two comments: the second finds it gone and relaunches it, the hook asked
    await kill(first);
    assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the second comment")), {
      status: "delivered",
      detail: "respawned",
    });
    const relaunched = await waitForHarnessLog(rig.harnessLog, (e) => boots(e).length === 2);
    const second = boots(relaunched)[1];
    assert.deepEqual(second.argv?.slice(0, 4), ["--model", "opus", "--resume", first.session]);
    assert.match(second.argv!.at(-1)!, /the second comment/);
    assert.equal(await rig.alive(s), true);
    const calls = await hookCalls(rig.dir);
    assert.deepEqual(calls.map((c) => [c.point, c.context.respawn]), [
      ["session_spawn", false],
      ["session_spawn", true],
    ]);
    assert.match(calls[1].context.prompt, /the second comment/);
    assert.equal(t.events.ofType("session.respawned")[0].resumed, true);

    // killed again, and the hook now refuses: no launch, the refusal said and settled
    await Deno.writeTextFile(join(rig.dir, "refuse"), "");
    await kill(second);
    assert.deepEqual(await t.dispatcher.dispatch(comment(1, "the third comment")), {
      status: "settled",
      reason: "hook-refused",
    });
    assert.deepEqual((await hookCalls(rig.dir)).map((c) => c.context.respawn), [false, true, true]);
    assert.equal(boots(await waitForHarnessLog(rig.harnessLog, () => true)).length, 2);
    assert.equal(await rig.alive(s), false);
    assert.equal(t.events.ofType("session.respawned").length, 1);
    assert.equal(
      t.github.comments.at(-1)?.body,
      "⚠️ the-loop did not relaunch the session: spawn-guard: no relaunch while the pane is under repair",
    );
    assert.equal(sink.ofType("hooks.refused")[0].hook, "spawn-guard");
  } finally {
    await hooks.close();
    await rig.cleanup();
  }
});
