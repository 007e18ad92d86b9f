/**
 * The values a prompt is rendered with, and the two renderings: the event prompt (a delivery,
 * with its part of a burst) and the spawn prompt (a new session's boot text).
 *
 * @module
 */
import { repoOf, slugOf } from "../../state/work_item.ts";
import { type PromptValues, renderPrompt } from "../prompts.ts";
import type { RoutedEvent } from "../types.ts";
import type { Turn } from "./turn.ts";
import { tmuxSessionName } from "../runners/mod.ts";
import { payloadExcerpt } from "../_excerpt.ts";
import { type BurstPart, burstPart, REPEAT_LINE } from "./burst.ts";

/** How the session talks to people, by how it is hosted. */
function interactionDirective(turn: Turn): string {
  const ref = turn.ref;
  // with the-loop on the session's PATH, a question is tracked (`the-loop ask`); else a comment
  const ask = turn.deps.sessionEnv
    ? 'When you need a decision from a person, run `the-loop ask --question "..."` from ' +
      "this session and wait: the answer reaches you as a new event."
    : `When you need a decision from a person, ask it in a comment on ${ref} ` +
      "and wait: the answer reaches you as a new event.";
  const runner = turn.deps.runner;
  if (runner.kind === "tmux") {
    const slug = slugOf(turn.event.workItem);
    const attach = runner.attachCommand?.(slug) ?? `tmux attach -t ${tmuxSessionName(slug)}`;
    return `This session runs in tmux (\`${attach}\`), where a person may be watching. ${ask}`;
  }
  return "This session runs headless: each event is one turn. " +
    ask.replace("and wait", "and end your turn");
}

/** The placeholders' values for `event` (its text possibly rewritten by a hook). */
function promptValues(turn: Turn, event: RoutedEvent, graphContext = ""): PromptValues {
  const item = event.workItem;
  return {
    work_item: item.ref,
    event: event.ghEvent,
    action: event.action,
    repository: repoOf(item),
    delivery_id: event.deliveryId,
    payload_excerpt: payloadExcerpt(event),
    interaction_directive: interactionDirective(turn),
    graph_context: graphContext,
  };
}

/**
 * The prompt a live session is given for `event` alone ({@linkcode REPEAT_LINE} first when the
 * turn's delivery may repeat), and its part of a burst (`burst.ts`).
 */
export function eventDelivery(turn: Turn, event: RoutedEvent): { prompt: string; part: BurstPart } {
  const template = turn.deps.templates().event;
  const values = promptValues(turn, event);
  const rendered = renderPrompt(template, values);
  const prompt = turn.repeat ? `${REPEAT_LINE}\n\n${rendered}` : rendered;
  return { prompt, part: burstPart({ template, values, repeat: turn.repeat, prompt }) };
}

/**
 * The text a new session boots on, `event` being what triggered it; `graphContext` the item's
 * assignment in its loop (`loopContext` of `_loop.ts`), `""` when it walks none.
 */
export function spawnPrompt(turn: Turn, event: RoutedEvent, graphContext = ""): string {
  return renderPrompt(turn.deps.templates().spawn, promptValues(turn, event, graphContext));
}
