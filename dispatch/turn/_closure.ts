/**
 * Closure: an issue closing closes its session; a pull request closing closes only a
 * session registered for that pull request (`close.own`; a linked issue's session is
 * `session.kept_open`). A close never spawns and never becomes a prompt. With a live session
 * (active or paused): `work_item_complete` (its `announce: false` skips the closure comment), the
 * harness ended, the record closed, the control record and start marker cleared (a reopened item
 * starts afresh), the checkout removed when `workspace.cleanupOnClose`, then
 * `session.autoclosed` and, when tmux keeps the session, `session.retained`.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { Handled, Turn } from "./turn.ts";
import { askComplete } from "./_call_sites.ts";
import { hostedOf } from "../sessions/mod.ts";
import { closureText, postComment } from "./comments.ts";
import { completeLoop, loopName } from "./_loop.ts";

const WHY = {
  "issue-closed": "the issue was closed",
  "pr-merged": "the pull request was merged",
  "pr-closed": "the pull request was closed",
} as const;

/** Handles a `close` event. */
export async function closure(turn: Turn): Promise<Handled> {
  const { deps, config, event } = turn;
  const isPull = event.ghEvent === "pull_request";
  const state = event.close?.state ?? "closed";
  const reason = !isPull ? "issue-closed" : state === "merged" ? "pr-merged" : "pr-closed";
  const live = await deps.sessions.live(turn.ref);
  if (event.close?.own === false) {
    if (live) turn.emit("session.kept_open", { reason, closed: event.linkedFrom ?? null });
    return { outcome: { status: "delivered", detail: "kept-open" } };
  }
  // the item is closed: whatever happens to a session, it is no longer armed
  await deps.controlStore.clear(turn.ref).catch(() => {});
  await deps.startMarks.clear(turn.ref).catch(() => {});
  const loop = await loopName(turn);
  await completeLoop(turn);
  if (!live) return { outcome: { status: "delivered", detail: "no-session" } };
  const complete = await askComplete(turn, {
    state,
    kind: isPull ? "pull-request" : "issue",
    reason,
    loop,
  });
  const hosted = hostedOf(live);
  try {
    await deps.runner.close(hosted);
  } catch (err) {
    try {
      deps.events.emit("session.harness_end_failed", {
        work_item: turn.ref,
        tmux_target: hosted.tmuxTarget,
        error: messageOf(err),
      });
    } catch { /* the log must not decide a closure */ }
  }
  await deps.sessions.close(turn.ref, { reason });
  if (deps.workspaces && config.workspace.enabled && config.workspace.cleanupOnClose) {
    await deps.workspaces.cleanup(event.workItem).catch((err) =>
      turn.emit("dispatch.cleanup_failed", { error: messageOf(err) }, "warning")
    );
  }
  const retained = deps.runner.kind === "tmux" && config.tmux.keepSessionOnClose &&
    hosted.tmuxTarget !== "";
  turn.emit("session.autoclosed", { reason, harness: live.harness, previous_status: live.status });
  if (retained) turn.emit("session.retained", { tmux_target: hosted.tmuxTarget });
  if (complete.announce && config.announce.enabled) {
    await postComment(turn, "closure", closureText(live, { why: WHY[reason], retained }));
  }
  return { outcome: { status: "delivered", detail: "closed" } };
}
