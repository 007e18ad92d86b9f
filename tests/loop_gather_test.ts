/**
 * The sessions dispatcher end to end, with the process runner: the comments that arrive while a
 * headless run works reach the harness together, in order, in the next run — one `--resume` run for
 * them, not one each. The real `gh-webhook start` runs the sessions dispatcher with `runner:
 * process`; the fake `claude` takes `FAKE_HARNESS_SLEEP_MS` per run and logs each invocation with
 * its argv.
 */
import assert from "node:assert/strict";
import { startLoopRig } from "../bench/loop_latency.ts";

interface Boot {
  event: string;
  argv: string[];
  session: string | null;
}

async function boots(path: string): Promise<Boot[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
    .filter((e) => e.event === "boot");
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The prompt a headless run was given (`-p <prompt>`, or after `--`). */
function promptOf(b: Boot): string {
  const dashes = b.argv.indexOf("--");
  return dashes >= 0 ? b.argv[dashes + 1] : b.argv[b.argv.indexOf("-p") + 1];
}

Deno.test("gh-webhook start (process runner): comments that arrive during a run go into the next run together, in order", async () => {
  // each headless run takes 2 s: long enough for the next comments to arrive while it works
  const rig = await startLoopRig({
    sessions: 1,
    runner: "process",
    env: { FAKE_HARNESS_SLEEP_MS: "2000" },
  });
  try {
    const [issue] = rig.issues;
    const session = rig.sessionOf.get(issue)!;
    const before = (await boots(rig.harnessLog)).length; // the spawn's run
    const post = async (text: string) => {
      const r = await rig.post(await rig.prepare(issue, text));
      assert.equal(r.status, 202, text);
    };
    await post("gather one");
    await waitFor("the first comment's run", async () => {
      const runs = (await boots(rig.harnessLog)).slice(before);
      return runs.some((b) => promptOf(b).includes("gather one")) ? true : undefined;
    });
    // while that run works
    await post("gather two");
    await post("gather three");
    const runs = await waitFor("a second run", async () => {
      const all = (await boots(rig.harnessLog)).slice(before);
      return all.length >= 2 ? all : undefined;
    });
    assert.equal(runs.length, 2);
    for (const run of runs) {
      assert.equal(run.session, session, "the same conversation, resumed");
      assert.ok(run.argv.includes("--resume"), JSON.stringify(run.argv));
    }
    const second = promptOf(runs[1]);
    assert.ok(!promptOf(runs[0]).includes("gather two"));
    const [two, three] = ["gather two", "gather three"].map((t) => second.indexOf(t));
    assert.ok(two >= 0 && three > two, `both, in order, in one run:\n${second}`);
    assert.ok(second.startsWith("2 new events arrived on the work item"), "one frame for both");
    assert.equal(second.match(/Carry on with your work/g)?.length, 1, "one closing paragraph");
    // each delivered once, the last two as one batch: the daemon's records say so
    const delivered = await waitFor("three deliveries recorded", async () => {
      const text = await Deno.readTextFile(rig.eventsLog).catch(() => "");
      const d = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
        .filter((e) => e.event === "dispatch.delivered");
      return d.length >= 3 ? d : undefined;
    });
    assert.deepEqual(delivered.map((e) => e.batch), [1, 2, 2]);
  } finally {
    await rig.close();
  }
});
