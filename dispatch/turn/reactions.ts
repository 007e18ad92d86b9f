/**
 * Reactions: `started` (👀) when an event is picked up, then `completed` (🎉) or
 * `error` (😕), on the comment or review comment that triggered it, or on the issue or pull
 * request itself (reviews, presence, label events). An event with nothing to react on (CI) gets
 * none; `reactions.enabled: false` or a state set to `""` makes no request. Best-effort: a
 * failure is `dispatch.reaction_failed` and nothing else.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { ReactionTarget } from "../../github/mod.ts";
import { repoOf } from "../../state/work_item.ts";
import type { RoutedEvent } from "../types.ts";
import type { ReactionState, Turn } from "./turn.ts";

/** The repository the event's subject lives in (a linked PR's may be another one). */
function subjectRepo(event: RoutedEvent): string {
  return event.repository.includes("/") ? event.repository : repoOf(event.workItem);
}

/** Where a reaction to `event` goes; `undefined` when it has no reactable subject. */
export function reactionTarget(event: RoutedEvent): ReactionTarget | undefined {
  const s = event.subject;
  if (!s) return undefined;
  const repo = subjectRepo(event);
  if (s.kind === "issue_comment" && s.id !== undefined) return { repo, comment: s.id };
  if (s.kind === "review_comment" && s.id !== undefined) return { repo, reviewComment: s.id };
  const number = s.number ?? (event.linkedFrom ? undefined : event.workItem.number);
  return number !== undefined ? { repo, issue: number } : undefined;
}

/** Adds the reaction of `state`, if any is configured. Never throws. */
export async function react(turn: Turn, state: ReactionState): Promise<void> {
  const settings = turn.config.reactions;
  const content = settings[state];
  if (!settings.enabled || !content) return;
  const target = reactionTarget(turn.event);
  if (!target) return;
  try {
    await turn.deps.github.addReaction(target, content);
  } catch (err) {
    turn.emit("dispatch.reaction_failed", { state, content, error: messageOf(err) }, "warning");
  }
}
