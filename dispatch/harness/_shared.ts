/**
 * What the adapters share: where a prompt goes in an argv, how a headless run's JSON result (or
 * JSON lines) names its conversation and is found in the output, and how the adapter's own flags
 * (caps, approval, model) give way to the operator's `extraArgs`.
 *
 * @module
 */
import type { HarnessCall, HarnessMode, HarnessSettings } from "../seams.ts";

/**
 * The prompt as the last argv elements: nothing when empty, `-- <prompt>` when it starts with a
 * dash (so the harness's option parser cannot read it as a flag), else the prompt alone. Always
 * one element for the prompt itself, never split or quoted: no shell ever sees it.
 */
export function promptTail(prompt: string | undefined): string[] {
  if (!prompt) return [];
  return prompt.startsWith("-") ? ["--", prompt] : [prompt];
}

/**
 * An interactive launch that names its conversation, as `claude`, `gemini` and `cursor-agent`
 * take it: `<extra…> <own…> <idFlag> <id> <prompt…>` (`--session-id` to open one with a
 * pre-assigned id, `--resume` to go on with one).
 */
export function conversationArgs(
  o: { extraArgs: string[]; sessionId: string },
  own: string[],
  idFlag: "--session-id" | "--resume",
  prompt: string[],
): string[] {
  return [...o.extraArgs, ...own, idFlag, o.sessionId, ...prompt];
}

/**
 * The headless form shared by `claude`, `cursor-agent` and `gemini`:
 * `<extra…> -p <prompt> [--resume <id>] --output-format json [<flags…>]` (`flags`: the adapter's
 * own: its settings, its caps). A prompt that starts with a dash moves after `--` at the end,
 * where it can only be the positional prompt.
 */
export function headlessArgs(
  o: { sessionId?: string; prompt: string; extraArgs: string[] },
  flags: string[] = [],
): string[] {
  const resume = o.sessionId ? ["--resume", o.sessionId] : [];
  const tail = ["--output-format", "json", ...flags];
  if (o.prompt.startsWith("-")) return [...o.extraArgs, "-p", ...resume, ...tail, "--", o.prompt];
  return [...o.extraArgs, "-p", o.prompt, ...resume, ...tail];
}

/**
 * One flag of an adapter's own: `names` (the first is written; any of them in the operator's
 * `extraArgs` means the operator chose, and the adapter's is left out), and its value (none for
 * a switch).
 */
export interface OwnFlag {
  names: readonly string[];
  value?: string;
}

/** The argv of `flags`, less each one the operator's `extraArgs` already set. */
export function ownFlags(flags: readonly (OwnFlag | undefined)[], extraArgs: string[]): string[] {
  const out: string[] = [];
  for (const f of flags) {
    if (!f || f.names.some((n) => hasFlag(extraArgs, n))) continue;
    out.push(f.names[0], ...(f.value === undefined ? [] : [f.value]));
  }
  return out;
}

/**
 * What a harness's settings become, as a table per approval mode and mode, plus the model and
 * effort flags (absent where it has none): the one shape every adapter's `settingsArgs` takes.
 */
export interface SettingsTable {
  approval: Record<HarnessSettings["approvalMode"], Record<HarnessMode, readonly OwnFlag[]>>;
  model?: (model: string, mode: HarnessMode) => OwnFlag[];
  effort?: (effort: string, mode: HarnessMode) => OwnFlag[];
  trust?: Partial<Record<HarnessMode, readonly OwnFlag[]>>;
}

/** The flags of `table` for a call's settings in `mode` (none without settings). */
export function settingsFlags(
  table: SettingsTable,
  o: HarnessCall & { mode: HarnessMode },
): string[] {
  const s = o.settings;
  if (!s) return [];
  return ownFlags([
    ...table.approval[s.approvalMode][o.mode],
    ...(s.model && table.model ? table.model(s.model, o.mode) : []),
    ...(s.effort && table.effort ? table.effort(s.effort, o.mode) : []),
    ...(s.trust ? table.trust?.[o.mode] ?? [] : []),
  ], o.extraArgs);
}

/** Each line of `stdout` that is a JSON object, in order (JSON lines; others skipped). */
export function* jsonLinesOf(stdout: string): Generator<Record<string, unknown>> {
  for (const line of stdout.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch {
      continue;
    }
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      yield parsed as Record<string, unknown>;
    }
  }
}

/** `o[k]` when `o` is a plain object, else `undefined`. */
export function field(o: unknown, k: string): unknown {
  return typeof o === "object" && o !== null && !Array.isArray(o)
    ? (o as Record<string, unknown>)[k]
    : undefined;
}

/**
 * The JSON objects a headless run printed, most likely result first: the whole output as one
 * object (`--output-format json` prints one), then each line from the last (`stream-json`, or
 * noise before the result). Arrays, scalars and lines that are not JSON are skipped.
 */
function* jsonObjectsOf(stdout: string): Generator<Record<string, unknown>> {
  const text = stdout.trim();
  if (!text) return;
  for (const c of [text, ...text.split("\n").reverse()]) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(c.trim());
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) continue;
    yield parsed as Record<string, unknown>;
  }
}

/**
 * The `session_id` of a `--output-format json` result: the one JSON object printed at the end
 * (claude and cursor-agent both document `{"type":"result", …, "session_id": "…"}`). Only the
 * top-level key is read, so an id quoted inside the answer (`result`) cannot redirect the
 * conversation; `valid` rejects anything that is not a plausible id.
 */
export function sessionIdOf(stdout: string, valid: (id: string) => boolean): string | undefined {
  for (const parsed of jsonObjectsOf(stdout)) {
    const id = parsed.session_id;
    if (typeof id === "string" && valid(id)) return id;
  }
  return undefined;
}

/**
 * The result object of a headless run: the first JSON object (in {@linkcode jsonObjectsOf}'s
 * order) whose `type` is `"result"` or absent; `undefined` when there is none (a run killed
 * before its end, a failure that printed only to stderr, garbage).
 */
export function resultOf(stdout: string): Record<string, unknown> | undefined {
  for (const parsed of jsonObjectsOf(stdout)) {
    if (parsed.type === undefined || parsed.type === "result") return parsed;
  }
  return undefined;
}

/**
 * The answer text of a headless run: the result object's `result` string (claude and
 * cursor-agent both document it), else `undefined`.
 */
export function resultTextOf(stdout: string): string | undefined {
  const text = resultOf(stdout)?.result;
  return typeof text === "string" ? text : undefined;
}

/** A non-negative finite number (a cost), else `undefined`. */
export function amountOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** A non-negative whole number (a token or turn count), else `undefined`. */
export function countOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/**
 * Whether the operator's `extraArgs` already set `flag` (`--max-turns 5` or `--max-turns=5`):
 * then the adapter adds none of its own, and the operator's value is the one in force.
 */
export function hasFlag(extraArgs: string[], flag: string): boolean {
  return extraArgs.some((a) => a === flag || a.startsWith(`${flag}=`));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A Claude Code session id: a UUID (what `--session-id` accepts). */
export const isUuid = (id: string): boolean => UUID.test(id);

/** A conversation id safe to hand back as an argv value: no leading dash, no spaces, ≤ 128. */
export const isToken = (id: string): boolean => TOKEN.test(id);
