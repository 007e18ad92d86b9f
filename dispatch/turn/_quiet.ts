/**
 * The turn's side of `routing.deliver` (the decision itself is `dispatch/deliver_policy.ts`):
 * a quiet action for a live session is settled `quiet-action` (`dispatch.dropped`, no turn), and
 * a CI event updates the session's failing checks (`ciFailing`) whether it is delivered or not,
 * so the first success after a failure is told apart from every other success.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { SessionRecord } from "../../state/registry.ts";
import { isQuiet, nextCiFailing } from "../deliver_policy.ts";
import type { Handled, Turn } from "./turn.ts";

/**
 * The settled answer when the turn's event is a quiet action for `live`, else `undefined` (it is
 * delivered). `live.ciFailing` is what the session knew before this event.
 */
export function quietAction(turn: Turn, live: SessionRecord): Handled | undefined {
  const quiet = isQuiet(turn.event, turn.config.deliver, {
    autoExecuteLabel: turn.config.autoExecuteLabel,
    ciFailing: live.ciFailing ?? [],
  });
  return quiet ? turn.dropped("quiet-action") : undefined;
}

/**
 * Notes a CI event's result on `live`'s record: a failed check joins `ciFailing`, a passing one
 * leaves it. A registry that cannot be written is a warning (`dispatch.registry_failed`): the
 * event goes on; a later success may then be taken for a plain one.
 */
export async function trackCi(turn: Turn, live: SessionRecord): Promise<void> {
  const next = nextCiFailing(turn.event, live.ciFailing ?? []);
  if (!next) return;
  try {
    await turn.deps.sessions.update(turn.ref, { ciFailing: next });
  } catch (err) {
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
  }
}
