/**
 * A delivery into a live, active session: the event prompt rendered (from the event as the
 * `input_received` hooks left its text), handed to the runner — or, when the harness is gone,
 * the session relaunched on it — and the delivery id noted on the session (at-most-once).
 *
 * @module
 */
import type { SessionRecord } from "../state/registry.ts";
import type { RoutedEvent } from "./types.ts";
import type { Handled, Turn } from "./_deps.ts";
import { eventPrompt } from "./_render.ts";
import { respawn } from "./_spawn.ts";
import { messageOf } from "../errors.ts";
import { hostedOf } from "./sessions/mod.ts";

/** Delivers `event` (text maybe rewritten) into `live`. */
export async function deliver(
  turn: Turn,
  live: SessionRecord,
  event: RoutedEvent,
): Promise<Handled> {
  const { runner, sessions } = turn.deps;
  turn.pickup();
  const hosted = hostedOf(live);
  const prompt = eventPrompt(turn, event);
  let respawned = false;
  try {
    const alive = await turn.harness("checking the harness", () => runner.alive(hosted));
    if (alive) {
      await turn.harness(
        `delivering to ${hosted.harness}`,
        (signal) => runner.deliver(hosted, prompt, { signal }),
      );
    } else {
      const refused = await respawn(turn, hosted, prompt);
      if (refused) return refused;
      respawned = true;
    }
  } catch (err) {
    return { outcome: turn.failed("deliver", err) };
  }
  try {
    await sessions.touch(turn.ref, event.deliveryId);
  } catch (err) {
    // delivered all the same; a redelivery may repeat it, which is the lesser harm
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
  }
  turn.emit("dispatch.delivered", {
    kind: event.kind,
    gh_event: event.ghEvent,
    harness: hosted.harness,
    harness_session_id: hosted.harnessSessionId,
    respawned,
  });
  return { outcome: { status: "delivered", detail: respawned ? "respawned" : "delivered" } };
}
