/**
 * Google's Gemini CLI (`gemini`). A new conversation's id is pre-assigned: `--session-id <uuid>`
 * ("start a new session with a manually provided UUID"), so a tmux session is known before it
 * starts. Interactive: `gemini <extra…> <own…> --session-id <uuid> --prompt-interactive=<prompt>`,
 * resume `gemini <extra…> <own…> --resume <uuid> [--prompt-interactive=<prompt>]`. Headless:
 * `gemini <extra…> -p <prompt> [--resume <uuid>] --output-format json <own…>` (a prompt that
 * starts with a dash goes as `--prompt=<prompt>`, which no option parser reads as a flag).
 *
 * Its JSON result is `{response, stats, error?, session_id}`; `stats.models.<model>.tokens.total`
 * summed over the models is what a run used in tokens (gemini reports no cost and no turn count).
 * Exit 53 is its turn limit (`model.maxSessionTurns`, a setting, not a flag: the-loop passes no
 * turn cap), 42 an input error.
 *
 * Its own flags (each left out when `harnessArgs.gemini` sets it): `--approval-mode
 * default|auto_edit|yolo` (an operator's `--yolo` counts as setting it), `--model`, and
 * `--skip-trust` (folder trust) when `harnessTrust.enabled`. No effort flag.
 *
 * @module
 */
import type { HarnessAdapter, HarnessCall, HarnessMode, HarnessUsage } from "../seams.ts";
import {
  conversationArgs,
  countOf,
  field,
  isUuid,
  resultOf,
  sessionIdOf,
  settingsFlags,
  type SettingsTable,
} from "./_shared.ts";

const MODE = ["--approval-mode", "--yolo", "-y"];
const approval = (value: string) => {
  const f = [{ names: MODE, value }];
  return { headless: f, interactive: f };
};

/** Gemini's settings as flags. */
export const GEMINI_SETTINGS: SettingsTable = {
  approval: {
    ask: approval("default"),
    "auto-edit": approval("auto_edit"),
    "auto-all": approval("yolo"),
  },
  model: (model) => [{ names: ["--model", "-m"], value: model }],
  trust: { headless: [{ names: ["--skip-trust"] }], interactive: [{ names: ["--skip-trust"] }] },
};

const own = (o: HarnessCall, m: HarnessMode) => settingsFlags(GEMINI_SETTINGS, { ...o, mode: m });

/** The prompt as `-p <prompt>`, or `--prompt=<prompt>` when it starts with a dash. */
const headlessPrompt = (p: string) => p.startsWith("-") ? [`--prompt=${p}`] : ["-p", p];
const interactivePrompt = (p: string | undefined) => p ? [`--prompt-interactive=${p}`] : [];

/** What a run used: the tokens of every model in `stats`; `undefined` with none. */
export function geminiUsageOf(stdout: string): HarnessUsage | undefined {
  const models = field(field(resultOf(stdout), "stats"), "models");
  if (typeof models !== "object" || models === null) return undefined;
  let tokens: number | undefined;
  for (const m of Object.values(models as Record<string, unknown>)) {
    const total = countOf(field(field(m, "tokens"), "total"));
    if (total !== undefined) tokens = (tokens ?? 0) + total;
  }
  return tokens === undefined ? undefined : { tokens };
}

/** The `gemini` adapter. */
export const geminiAdapter: HarnessAdapter = {
  name: "gemini",
  program: "gemini",
  ids: { kind: "preassign" },
  isResumableId: isUuid,
  interactive: (o) =>
    conversationArgs(o, own(o, "interactive"), "--session-id", interactivePrompt(o.prompt)),
  resume: (o) =>
    conversationArgs(o, own(o, "interactive"), "--resume", interactivePrompt(o.prompt)),
  headless: (o) => [
    ...o.extraArgs,
    ...headlessPrompt(o.prompt),
    ...(o.sessionId ? ["--resume", o.sessionId] : []),
    "--output-format",
    "json",
    ...own(o, "headless"),
  ],
  sessionIdFromOutput: (stdout) => sessionIdOf(stdout, isUuid),
  usageFromOutput: geminiUsageOf,
  answerFromOutput: (stdout) => {
    const r = field(resultOf(stdout), "response");
    return typeof r === "string" ? r : undefined;
  },
  settingsArgs: (o) => own(o, o.mode),
};
