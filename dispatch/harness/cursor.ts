/**
 * Cursor's agent CLI (`cursor-agent`). It cannot be given a new conversation's id up front, so
 * an interactive boot is `cursor-agent <extra…> <prompt>` (the id stays unknown: a tmux-hosted
 * cursor session cannot be resumed after a crash and reboots fresh), and a resume is
 * `cursor-agent <extra…> --resume <chatId> [prompt]`. Headless:
 * `cursor-agent <extra…> -p <prompt> [--resume <chatId>] --output-format json`; the result object
 * documents the conversation id as `session_id` (the value `--resume` takes as its `chatId`).
 *
 * @module
 */
import type { HarnessAdapter } from "../seams.ts";
import { headlessArgs, isToken, promptTail, sessionIdOf } from "./_shared.ts";

/** The `cursor-agent` adapter. */
export const cursorAdapter: HarnessAdapter = {
  name: "cursor",
  program: "cursor-agent",
  preassignsId: false,
  interactive: (o) => [...o.extraArgs, ...promptTail(o.prompt)],
  resume: (o) => [...o.extraArgs, "--resume", o.sessionId, ...promptTail(o.prompt)],
  headless: (o) => headlessArgs(o),
  sessionIdFromOutput: (stdout) => sessionIdOf(stdout, isToken),
  usageFromOutput: () => undefined,
};
