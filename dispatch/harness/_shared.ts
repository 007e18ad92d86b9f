/**
 * What both adapters share: where a prompt goes in an argv, and how a headless run's JSON
 * result names its conversation.
 *
 * @module
 */

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
 * The headless form shared by `claude` and `cursor-agent`:
 * `<extra…> -p <prompt> [--resume <id>] --output-format json`. A prompt that starts with a dash
 * moves after `--` at the end, where it can only be the positional prompt.
 */
export function headlessArgs(
  o: { sessionId?: string; prompt: string; extraArgs: string[] },
): string[] {
  const resume = o.sessionId ? ["--resume", o.sessionId] : [];
  const format = ["--output-format", "json"];
  if (o.prompt.startsWith("-")) return [...o.extraArgs, "-p", ...resume, ...format, "--", o.prompt];
  return [...o.extraArgs, "-p", o.prompt, ...resume, ...format];
}

/**
 * The `session_id` of a `--output-format json` result: the one JSON object printed at the end
 * (claude and cursor-agent both document `{"type":"result", …, "session_id": "…"}`). Only the
 * top-level key is read, so an id quoted inside the answer (`result`) cannot redirect the
 * conversation; `valid` rejects anything that is not a plausible id.
 */
export function sessionIdOf(stdout: string, valid: (id: string) => boolean): string | undefined {
  const text = stdout.trim();
  if (!text) return undefined;
  const candidates = [text, ...text.split("\n").reverse()];
  for (const c of candidates) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(c.trim());
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) continue;
    const id = (parsed as Record<string, unknown>).session_id;
    if (typeof id === "string" && valid(id)) return id;
  }
  return undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A Claude Code session id: a UUID (what `--session-id` accepts). */
export const isUuid = (id: string): boolean => UUID.test(id);

/** A conversation id safe to hand back as an argv value: no leading dash, no spaces, ≤ 128. */
export const isToken = (id: string): boolean => TOKEN.test(id);
