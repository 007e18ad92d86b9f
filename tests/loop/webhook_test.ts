/**
 * The whole loop through `gh-webhook start`: world changes of the fake GitHub delivered as signed
 * webhooks to the real daemon, which spawns fake `claude` sessions in real tmux, in worktrees
 * cloned from local bare remotes, with real module hooks (see `_test_utils.ts`).
 */
import {
  bootedOncePerSession,
  closeEnds,
  commentsInOrder,
  type Drive,
  Loop,
  openIssues,
  pauseResume,
  quietSpawn,
  type Receiver,
  rosterRefuses,
  type Spawned,
  spawnsOne,
  stopByCli,
} from "./_test_utils.ts";

Deno.test("gh-webhook: label + start spawns one session; comments, pause/resume, roster, quiet, stop and close", async (t) => {
  const loop = await Loop.open();
  let receiver: Receiver | undefined;
  try {
    receiver = await loop.webhook();
    const r = receiver;
    const drive: Drive = { step: () => r.deliver() };
    await openIssues(loop, drive);
    let spawned!: Spawned;
    await t.step("label + start spawns exactly one session", async () => {
      spawned = await spawnsOne(loop, drive);
    });
    await t.step("later comments reach it once each, in order", async () => {
      await commentsInOrder(loop, drive, spawned);
    });
    await t.step("pause/resume by comment and by CLI verb", async () => {
      await pauseResume(loop, drive, spawned);
    });
    await t.step("a start by a non-roster actor is refused with a note", async () => {
      await rosterRefuses(loop, drive);
    });
    await t.step("a quiet-announce hook suppresses the announcement", async () => {
      await quietSpawn(loop, drive);
    });
    await t.step("sessions stop closes the session and ends its harness", async () => {
      await stopByCli(loop, drive);
    });
    await t.step("closing the issue closes the session and keeps its pane", async () => {
      await closeEnds(loop, drive, spawned);
    });
    await bootedOncePerSession(loop);
  } catch (err) {
    if (receiver) console.error(receiver.out.stderr);
    throw err;
  } finally {
    await receiver?.stop();
    await loop.close();
  }
});
