/**
 * Cursor's agent CLI (`cursor-agent`). It cannot be given a new conversation's id up front, so
 * an interactive boot is `cursor-agent <extra…> <prompt>` (the id stays unknown: a tmux-hosted
 * cursor session cannot be resumed after a crash and reboots fresh), and a resume is
 * `cursor-agent <extra…> --resume <chatId> [prompt]`. Headless:
 * `cursor-agent <extra…> -p <prompt> [--resume <chatId>] --output-format json`; the result object
 * documents the conversation id as `session_id` (the value `--resume` takes as its `chatId`).
 *
 * What a run used is not measured: cursor-agent's documented JSON result
 * (`{type, subtype, is_error, duration_ms, duration_api_ms, result, session_id, request_id}`)
 * reports no cost, tokens or turns, so {@linkcode HarnessAdapter.usageFromOutput} is always
 * `undefined` (a cost, token or turn budget says "not measured"). Nor has it a turn or spend cap
 * flag: a run's limits are ignored.
 *
 * @module
 */
import type { HarnessAdapter } from "../seams.ts";
import { headlessArgs, isToken, promptTail, resultTextOf, sessionIdOf } from "./_shared.ts";

/** The `cursor-agent` adapter. */
export const cursorAdapter: HarnessAdapter = {
  name: "cursor",
  program: "cursor-agent",
  preassignsId: false,
  interactive: (o) => [...o.extraArgs, ...promptTail(o.prompt)],
  resume: (o) => [...o.extraArgs, "--resume", o.sessionId, ...promptTail(o.prompt)],
  headless: (o) => headlessArgs(o),
  sessionIdFromOutput: (stdout) => sessionIdOf(stdout, isToken),
  // nothing to read: see the module doc
  usageFromOutput: () => undefined,
  answerFromOutput: resultTextOf,
};
