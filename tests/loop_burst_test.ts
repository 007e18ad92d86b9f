/**
 * The sessions dispatcher end to end: a burst of 200 signed webhook deliveries across 20
 * tmux-hosted sessions reaches every session exactly once, its own deliveries only, in order (the
 * original lost or misdelivered about 43% of such a burst). The real `gh-webhook start` runs the
 * sessions dispatcher with `runner: tmux` on a private tmux server; its 20 sessions are started the
 * product's way (a labelled issue and an authorized start comment each, see `startLoopRig`), and
 * each boots the fake `claude`, which logs every line pasted into its pane.
 */
import assert from "node:assert/strict";
import {
  collectUntil,
  type InputLine,
  type Prepared,
  startLoopRig,
} from "../bench/loop_latency.ts";

const PER_ISSUE = 10;
/** A comment body of the burst: `burst <issue> <k>`. */
const BURST = /^burst (\d+) (\d+)$/;

async function events(path: string): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(path)).split("\n").filter((l) => l.trim()).map((l) =>
    JSON.parse(l)
  );
}

Deno.test({
  name:
    "gh-webhook start (tmux): 200 concurrent deliveries over 20 sessions arrive once each, in their own session, in order",
  fn: async () => {
    const rig = await startLoopRig({ sessions: 20 });
    try {
      assert.equal(rig.sessionOf.size, 20);
      assert.equal(new Set(rig.sessionOf.values()).size, 20, "one conversation per session");
      // each issue's 10 comments go out in order (the next once the previous was accepted), all
      // 20 issues at once: 20 deliveries in flight at any time
      const sent: Prepared[] = [];
      await Promise.all(rig.issues.map(async (issue) => {
        for (let k = 0; k < PER_ISSUE; k++) {
          const p = await rig.prepare(issue, `burst ${issue} ${k}`, `burst-${issue}-${k}`);
          sent.push(p);
          const r = await rig.post(p);
          assert.equal(r.status, 202, `burst ${issue} ${k}`);
        }
      }));
      assert.equal(sent.length, 200);
      const seen: InputLine[] = [];
      const burstLines = () => seen.filter((l) => BURST.test(l.line));
      await collectUntil(rig, seen, () => burstLines().length >= 200, "200 burst lines");

      for (const issue of rig.issues) {
        const session = rig.sessionOf.get(issue)!;
        const got = burstLines().filter((l) => l.session === session).map((l) => l.line);
        const want = Array.from({ length: PER_ISSUE }, (_, k) => `burst ${issue} ${k}`);
        assert.deepEqual(got, want, `session of #${issue}: its own lines, once each, in order`);
        const pids = new Set(seen.filter((l) => l.session === session).map((l) => l.pid));
        assert.equal(pids.size, 1, `#${issue}: one harness process took them (no respawn)`);
      }
      assert.equal(burstLines().length, 200);

      // the same 10 delivery ids again: the router's dedup drops them. A fresh delivery to each of
      // those issues afterwards, once it arrived, shows nothing was queued before it.
      const again = rig.issues.slice(0, 10).map((issue) =>
        sent.find((p) => p.deliveryId === `burst-${issue}-${PER_ISSUE - 1}`)!
      );
      for (const r of await Promise.all(again.map((p) => rig.post(p)))) {
        assert.equal(r.status, 202);
      }
      await Promise.all(
        rig.issues.slice(0, 10).map(async (issue) => {
          const r = await rig.post(await rig.prepare(issue, `after ${issue}`, `after-${issue}`));
          assert.equal(r.status, 202);
        }),
      );
      await collectUntil(
        rig,
        seen,
        () => seen.filter((l) => l.line.startsWith("after ")).length >= 10,
        "the 10 deliveries after the duplicates",
      );
      assert.equal(burstLines().length, 200, "a duplicate delivery reached a harness");
      const dropped = (await events(rig.eventsLog)).filter((e) =>
        e.event === "routing.dropped" && e.reason === "duplicate-delivery"
      );
      assert.deepEqual(
        dropped.map((e) => e.delivery_id).sort(),
        again.map((p) => p.deliveryId).sort(),
      );
    } finally {
      await rig.close();
    }
  },
});
