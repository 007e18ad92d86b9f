/**
 * Claude Code (`claude`). Interactive: `claude <extra…> <own…> --session-id <uuid> <prompt>` (the
 * id is pre-assigned, so a new conversation's id is known before it starts) and
 * `claude <extra…> <own…> --resume <uuid> [prompt]`. Headless:
 * `claude <extra…> -p <prompt> [--resume <uuid>] --output-format json <own…> [--max-turns N]
 * [--max-budget-usd X]`, whose result object carries `session_id`, and what the run used:
 * `total_cost_usd`, `usage` (input, output, cache-write and cache-read tokens) and `num_turns`.
 * The caps come from the run's limits; a cap the operator already set in `harnessArgs.claude`
 * is left to the operator's value (never given twice). A run stopped by a cap exits 1 with an
 * `error_max_turns` or `error_max_budget_usd` result, which still carries what it used.
 *
 * Its own flags (`<own…>`, each left out when `harnessArgs.claude` sets it): the approval mode as
 * `--permission-mode default|acceptEdits|bypassPermissions` (an operator's
 * `--dangerously-skip-permissions` counts as setting it), `--model`, `--effort`.
 *
 * @module
 */
import type {
  HarnessAdapter,
  HarnessCall,
  HarnessMode,
  HarnessUsage,
  RunLimits,
} from "../seams.ts";
import {
  amountOf,
  conversationArgs,
  countOf,
  field,
  hasFlag,
  headlessArgs,
  isUuid,
  promptTail,
  resultOf,
  sessionIdOf,
  settingsFlags,
  type SettingsTable,
} from "./_shared.ts";

/** Each run limit's flag and how its value is written (`undefined`: no cap). */
const CAPS: Record<keyof RunLimits, { flag: string; value: (n: number) => string | undefined }> = {
  // a whole number of turns, at least one
  maxTurns: {
    flag: "--max-turns",
    value: (n) => Number.isFinite(n) ? String(Math.max(1, Math.floor(n))) : undefined,
  },
  // dollars to four decimals, at least $0.0001 (a cap of nothing is still a cap)
  maxBudgetUsd: {
    flag: "--max-budget-usd",
    value: (n) => Number.isFinite(n) ? String(Math.max(0.0001, Number(n.toFixed(4)))) : undefined,
  },
};

/**
 * The cap flags for `limits`: each limit set to a finite number becomes its flag, unless
 * `extraArgs` already has that flag (the operator's value wins).
 */
export function claudeCapArgs(limits: RunLimits | undefined, extraArgs: string[]): string[] {
  if (!limits) return [];
  const out: string[] = [];
  for (const key of Object.keys(CAPS) as (keyof RunLimits)[]) {
    const n = limits[key];
    if (typeof n !== "number" || hasFlag(extraArgs, CAPS[key].flag)) continue;
    const value = CAPS[key].value(n);
    if (value !== undefined) out.push(CAPS[key].flag, value);
  }
  return out;
}

/** The token counts of Claude's `usage` object, summed (all four kinds count). */
const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
] as const;

/**
 * What a headless run's result reports it used: `total_cost_usd` → `costUsd`, the `usage` token
 * counts summed → `tokens`, `num_turns` → `turns`; a field missing or malformed is left out, and
 * a result with none of them (or no result at all) is `undefined`. Never throws.
 */
export function claudeUsageOf(stdout: string): HarnessUsage | undefined {
  const result = resultOf(stdout);
  if (!result) return undefined;
  const usage: HarnessUsage = {};
  const cost = amountOf(result.total_cost_usd);
  if (cost !== undefined) usage.costUsd = cost;
  const u = result.usage;
  if (typeof u === "object" && u !== null && !Array.isArray(u)) {
    const counts = TOKEN_FIELDS.map((f) => countOf((u as Record<string, unknown>)[f]))
      .filter((n) => n !== undefined);
    if (counts.length) usage.tokens = counts.reduce((a, b) => a + b, 0);
  }
  const turns = countOf(result.num_turns);
  if (turns !== undefined) usage.turns = turns;
  return Object.keys(usage).length ? usage : undefined;
}

const PERMISSION = ["--permission-mode", "--dangerously-skip-permissions"];
const mode = (value: string) => [{ names: PERMISSION, value }];

/** Claude's settings as flags: one permission mode for both forms. */
export const CLAUDE_SETTINGS: SettingsTable = {
  approval: {
    ask: { headless: mode("default"), interactive: mode("default") },
    "auto-edit": { headless: mode("acceptEdits"), interactive: mode("acceptEdits") },
    "auto-all": { headless: mode("bypassPermissions"), interactive: mode("bypassPermissions") },
  },
  model: (model) => [{ names: ["--model"], value: model }],
  effort: (effort) => [{ names: ["--effort"], value: effort }],
};

const own = (o: HarnessCall, m: HarnessMode) => settingsFlags(CLAUDE_SETTINGS, { ...o, mode: m });

/** The `claude` adapter. */
export const claudeAdapter: HarnessAdapter = {
  name: "claude",
  program: "claude",
  ids: { kind: "preassign" },
  isResumableId: isUuid,
  interactive: (o) =>
    conversationArgs(o, own(o, "interactive"), "--session-id", promptTail(o.prompt)),
  resume: (o) => conversationArgs(o, own(o, "interactive"), "--resume", promptTail(o.prompt)),
  headless: (o) =>
    headlessArgs(o, [...own(o, "headless"), ...claudeCapArgs(o.limits, o.extraArgs)]),
  sessionIdFromOutput: (stdout) => sessionIdOf(stdout, isUuid),
  usageFromOutput: claudeUsageOf,
  answerFromOutput: (stdout) => {
    const r = field(resultOf(stdout), "result");
    return typeof r === "string" ? r : undefined;
  },
  settingsArgs: (o) => own(o, o.mode),
};
