/**
 * Claude Code (`claude`). Interactive: `claude <extra…> --session-id <uuid> <prompt>` (the id is
 * pre-assigned, so a new conversation's id is known before it starts) and
 * `claude <extra…> --resume <uuid> [prompt]`. Headless:
 * `claude <extra…> -p <prompt> [--resume <uuid>] --output-format json`, whose result object
 * carries `session_id`.
 *
 * @module
 */
import type { HarnessAdapter } from "../seams.ts";
import { headlessArgs, isUuid, promptTail, sessionIdOf } from "./_shared.ts";

/** The `claude` adapter. */
export const claudeAdapter: HarnessAdapter = {
  name: "claude",
  program: "claude",
  preassignsId: true,
  interactive: (o) => [...o.extraArgs, "--session-id", o.sessionId, ...promptTail(o.prompt)],
  resume: (o) => [...o.extraArgs, "--resume", o.sessionId, ...promptTail(o.prompt)],
  headless: (o) => headlessArgs(o),
  sessionIdFromOutput: (stdout) => sessionIdOf(stdout, isUuid),
  usageFromOutput: () => undefined,
};
