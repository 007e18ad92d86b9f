/**
 * opencode (`opencode`). A new conversation is created first, so a tmux session is known before
 * it starts: `opencode run --format json --title the-loop --command true` starts a session and
 * every JSON event it prints carries its `sessionID` (the way peers pre-create one). Interactive:
 * `opencode <own…> <extra…> --session <id> --prompt=<prompt>` (the same form resumes it).
 * Headless: `opencode run --format json [--session <id>] <own…> <extra…> -- <prompt>`; its
 * output is JSON lines, each `{type, timestamp, sessionID, …}`.
 *
 * What a run used: each `step_finish` event's `part` carries `cost` (USD) and `tokens {input,
 * output, reasoning, cache {read, write}}`; the sums are the run's cost and tokens, the number of
 * steps its turns. The answer is the `text` events' text.
 *
 * Its own flags (each left out when `harnessArgs.opencode` sets it): `--auto` for `auto-all`
 * (anything not explicitly denied is approved); `ask` and `auto-edit` add nothing — opencode's
 * own `permission` config decides (`run` rejects what would ask), and the-loop never widens it;
 * `--model provider/model`, effort as `--variant`. No turn or spend cap flag.
 *
 * @module
 */
import type { HarnessAdapter, HarnessCall, HarnessMode, HarnessUsage } from "../seams.ts";
import {
  amountOf,
  countOf,
  field,
  isToken,
  jsonLinesOf,
  settingsFlags,
  type SettingsTable,
} from "./_shared.ts";

const AUTO = [{ names: ["--auto"] }];

/** opencode's settings as flags. */
export const OPENCODE_SETTINGS: SettingsTable = {
  approval: {
    ask: { headless: [], interactive: [] },
    "auto-edit": { headless: [], interactive: [] },
    "auto-all": { headless: AUTO, interactive: AUTO },
  },
  model: (model) => [{ names: ["--model", "-m"], value: model }],
  effort: (effort) => [{ names: ["--variant"], value: effort }],
};

const own = (o: HarnessCall, m: HarnessMode) => settingsFlags(OPENCODE_SETTINGS, { ...o, mode: m });

/** The `sessionID` of the first event that names one. */
export function opencodeSessionOf(stdout: string): string | undefined {
  for (const e of jsonLinesOf(stdout)) {
    const id = e.sessionID;
    if (typeof id === "string" && isToken(id)) return id;
  }
  return undefined;
}

/** What a run used, summed over its `step_finish` events; `undefined` with none. */
export function opencodeUsageOf(stdout: string): HarnessUsage | undefined {
  let steps = 0;
  let cost: number | undefined;
  let tokens: number | undefined;
  for (const e of jsonLinesOf(stdout)) {
    if (e.type !== "step_finish") continue;
    steps++;
    const c = amountOf(field(e.part, "cost"));
    if (c !== undefined) cost = (cost ?? 0) + c;
    const t = field(e.part, "tokens");
    const counts = [
      field(t, "input"),
      field(t, "output"),
      field(t, "reasoning"),
      field(field(t, "cache"), "read"),
      field(field(t, "cache"), "write"),
    ].map(countOf).filter((n) => n !== undefined);
    if (counts.length) tokens = (tokens ?? 0) + counts.reduce((a, b) => a + b, 0);
  }
  if (steps === 0) return undefined;
  return {
    turns: steps,
    ...(cost !== undefined ? { costUsd: cost } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
  };
}

/** The answer: the `text` events' text, in order. */
export function opencodeAnswerOf(stdout: string): string | undefined {
  const parts: string[] = [];
  for (const e of jsonLinesOf(stdout)) {
    const text = field(e.part, "text");
    if (e.type === "text" && typeof text === "string") parts.push(text);
  }
  return parts.length ? parts.join("") : undefined;
}

const interactivePrompt = (p: string | undefined) => p ? [`--prompt=${p}`] : [];

/** The `opencode` adapter. */
export const opencodeAdapter: HarnessAdapter = {
  name: "opencode",
  program: "opencode",
  ids: {
    kind: "issue",
    args: () => ["run", "--format", "json", "--title", "the-loop", "--command", "true"],
    parse: opencodeSessionOf,
  },
  isResumableId: isToken,
  interactive: (o) => [
    ...own(o, "interactive"),
    ...o.extraArgs,
    ...(o.sessionId ? ["--session", o.sessionId] : []),
    ...interactivePrompt(o.prompt),
  ],
  resume: (o) => [
    ...own(o, "interactive"),
    ...o.extraArgs,
    "--session",
    o.sessionId,
    ...interactivePrompt(o.prompt),
  ],
  headless: (o) => [
    "run",
    "--format",
    "json",
    ...(o.sessionId ? ["--session", o.sessionId] : []),
    ...own(o, "headless"),
    ...o.extraArgs,
    "--",
    o.prompt,
  ],
  sessionIdFromOutput: opencodeSessionOf,
  usageFromOutput: opencodeUsageOf,
  answerFromOutput: opencodeAnswerOf,
  settingsArgs: (o) => own(o, o.mode),
};
