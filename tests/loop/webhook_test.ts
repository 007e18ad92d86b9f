/**
 * The whole loop through `gh-webhook start`: world changes of the fake GitHub delivered as signed
 * webhooks to the real daemon, which spawns fake `claude` sessions in real tmux, in worktrees
 * cloned from local bare remotes, with real module hooks (see `_test_utils.ts`). The same
 * scenarios as `poll_test.ts`, the same assertions.
 */
import { Loop, type Receiver, runScenario } from "./_test_utils.ts";

Deno.test("gh-webhook: label + start spawns one session; comments, pause/resume, roster, quiet, stop and close", async (t) => {
  const loop = await Loop.open();
  let receiver: Receiver | undefined;
  try {
    receiver = await loop.webhook();
    const r = receiver;
    await runScenario(t, loop, { step: () => r.deliver() });
  } catch (err) {
    if (receiver) console.error(receiver.out.stderr);
    throw err;
  } finally {
    await receiver?.stop();
    await loop.close();
  }
});
