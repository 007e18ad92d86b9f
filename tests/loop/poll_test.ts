/**
 * The whole loop through `poll start --once`: after each change to the fake GitHub's world, one
 * poll cycle of the real CLI hands it over; sessions are fake `claude`s in real tmux, in
 * worktrees cloned from local bare remotes, with real module hooks (see `_test_utils.ts`). The
 * same scenarios as `webhook_test.ts`, the same assertions.
 */
import { Loop, runScenario } from "./_test_utils.ts";

Deno.test("poll: label + start spawns one session; comments, pause/resume, roster, quiet, stop and close", async (t) => {
  const loop = await Loop.open();
  try {
    await runScenario(t, loop, {
      async step() {
        await loop.pollOnce();
      },
    });
  } finally {
    await loop.close();
  }
});
