/**
 * Ask and reply: the agent's question (`the-loop ask`: `waiting_for_input` kind `question`, one
 * marked comment, the session marked awaiting input), the answer (the next authorized comment
 * while it waits, or `the-loop reply`: `input_received` kind `answer`), delivered framed as the
 * answer to that question, which closes the wait.
 *
 * @module
 */
import type { SessionRecord } from "../../state/registry.ts";
import type { RoutedEvent, VerbResult } from "../types.ts";
import type { Answer, Turn } from "./turn.ts";

/** `the-loop ask`: records the wait and posts the question. */
export function askQuestion(
  _turn: Turn,
  _req: { question: string; summary?: string },
): Promise<VerbResult> {
  return Promise.resolve({ exit: 1, message: "ask is not built yet" });
}

/** `the-loop reply`: an operator's answer to the session's open question. */
export function reply(
  _turn: Turn,
  _req: { text: string; actor: string },
): Promise<VerbResult> {
  return Promise.resolve({ exit: 1, message: "reply is not built yet" });
}

/**
 * A comment on an item whose session awaits input: the answer (after `input_received`), or
 * `undefined` when it is not one (the comment is then delivered as usual).
 */
export function onAnswer(
  _turn: Turn,
  _live: SessionRecord,
  _event: RoutedEvent,
): Promise<Answer | undefined> {
  return Promise.resolve(undefined);
}
