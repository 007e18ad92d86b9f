/**
 * The whole loop through `poll start --once`: after each change to the fake GitHub's world, one
 * poll cycle of the real CLI hands it over; sessions are fake `claude`s in real tmux, in
 * worktrees cloned from local bare remotes, with real module hooks (see `_test_utils.ts`). The
 * same scenarios as `webhook_test.ts`, the same assertions.
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
  rosterRefuses,
  type Spawned,
  spawnsOne,
  stopByCli,
} from "./_test_utils.ts";

Deno.test("poll: label + start spawns one session; comments, pause/resume, roster, quiet, stop and close", async (t) => {
  const loop = await Loop.open();
  try {
    const drive: Drive = {
      async step() {
        await loop.pollOnce();
      },
    };
    await openIssues(loop, drive); // the first cycle baselines the labelled items
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
  } finally {
    await loop.close();
  }
});
