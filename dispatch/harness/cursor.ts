/**
 * Cursor's agent CLI (`cursor-agent`). A new conversation's id is issued up front by
 * `cursor-agent create-chat` (it prints a fresh chat id), so a tmux session is known before it
 * starts, and an interactive boot is `cursor-agent <extra…> <own…> --resume <chatId> <prompt>`
 * (the same form resumes it after a crash). Headless:
 * `cursor-agent <extra…> -p <prompt> [--resume <chatId>] --output-format json <own…>`; the
 * result object documents the conversation id as `session_id` (the value `--resume` takes).
 *
 * Its own flags (each left out when `harnessArgs.cursor` sets it): `--force` for `auto-all`
 * (cursor has no edits-only mode: `ask` and `auto-edit` add nothing — in print mode cursor has
 * write access to its workspace, in the TUI it asks before a command), `--model`, and headless
 * `--trust` (the workspace, when `harnessTrust.enabled`; the flag exists in print mode only).
 *
 * What a run used is not measured: cursor-agent's documented JSON result
 * (`{type, subtype, is_error, duration_ms, duration_api_ms, result, session_id, request_id}`)
 * reports no cost, tokens or turns, so {@linkcode HarnessAdapter.usageFromOutput} is always
 * `undefined` (a cost, token or turn budget says "not measured"). Nor has it a turn or spend cap
 * flag: a run's limits are ignored.
 *
 * @module
 */
import type { HarnessAdapter, HarnessCall, HarnessMode } from "../seams.ts";
import {
  conversationArgs,
  field,
  headlessArgs,
  isToken,
  promptTail,
  resultOf,
  sessionIdOf,
  settingsFlags,
  type SettingsTable,
} from "./_shared.ts";

const FORCE = [{ names: ["--force", "-f", "--yolo"] }];

/** Cursor's settings as flags. */
export const CURSOR_SETTINGS: SettingsTable = {
  approval: {
    ask: { headless: [], interactive: [] },
    "auto-edit": { headless: [], interactive: [] },
    "auto-all": { headless: FORCE, interactive: FORCE },
  },
  model: (model) => [{ names: ["--model", "-m"], value: model }],
  trust: { headless: [{ names: ["--trust"] }] },
};

const own = (o: HarnessCall, m: HarnessMode) => settingsFlags(CURSOR_SETTINGS, { ...o, mode: m });

/** The chat id `create-chat` printed: its one token line. */
export function chatIdOf(stdout: string): string | undefined {
  const lines = stdout.split("\n").map((l) => l.trim()).filter(Boolean);
  const last = lines[lines.length - 1];
  return last && isToken(last) ? last : undefined;
}

/** The `cursor-agent` adapter. */
export const cursorAdapter: HarnessAdapter = {
  name: "cursor",
  program: "cursor-agent",
  ids: { kind: "issue", args: () => ["create-chat"], parse: chatIdOf },
  isResumableId: isToken,
  interactive: (o) => [
    ...o.extraArgs,
    ...own(o, "interactive"),
    ...(o.sessionId ? ["--resume", o.sessionId] : []),
    ...promptTail(o.prompt),
  ],
  resume: (o) => conversationArgs(o, own(o, "interactive"), "--resume", promptTail(o.prompt)),
  headless: (o) => headlessArgs(o, own(o, "headless")),
  sessionIdFromOutput: (stdout) => sessionIdOf(stdout, isToken),
  // nothing to read: see the module doc
  usageFromOutput: () => undefined,
  answerFromOutput: (stdout) => {
    const r = field(resultOf(stdout), "result");
    return typeof r === "string" ? r : undefined;
  },
  settingsArgs: (o) => own(o, o.mode),
};
