/**
 * Turns a finished command hook run into the executor's answer: exit 0 with stdout (nothing, or
 * a JSON object), exit 2 as a refusal, anything else as a failure with the stderr tail.
 *
 * @module
 */
import type { CallResult, HookErrorCode, Telemetry } from "../../executor.ts";
import { refusedBy, run as says } from "../../_messages.ts";
import type { Captured } from "./_capture.ts";

export type { Telemetry } from "../../executor.ts";

/** How much of each stream telemetry keeps. */
export const TELEMETRY_BYTES = 4096;

const decoder = new TextDecoder();

function text(c: Captured, limit = Infinity): string {
  return decoder.decode(c.bytes.length > limit ? c.bytes.subarray(0, limit) : c.bytes);
}

/** Builds telemetry: the exit code (when known) and each stream capped to 4 KiB. */
export function telemetryOf(stdout: Captured, stderr: Captured, exitCode?: number): Telemetry {
  const tel: Telemetry = {
    stdout: text(stdout, TELEMETRY_BYTES),
    stderr: text(stderr, TELEMETRY_BYTES),
    stdout_truncated: stdout.truncated,
    stderr_truncated: stderr.truncated,
  };
  if (exitCode !== undefined) tel.exit_code = exitCode;
  return tel;
}

/** The last `n` characters of stderr, trimmed, for a failure message. */
function tail(s: string, n = 500): string {
  const t = s.trim();
  return t.length > n ? `...${t.slice(-n)}` : t;
}

/** A finished run's answer, or why it is a failure. */
export type Interpreted =
  | { ok: true; result: CallResult }
  | { ok: false; code: HookErrorCode; detail: string; telemetry: Telemetry };

/** Interprets an exited run. */
export function interpret(
  run: { code: number; signal: string | null; stdout: Captured; stderr: Captured },
  opts: { hook: string; max: number; answerMax?: number },
): Interpreted {
  const telemetry = telemetryOf(run.stdout, run.stderr, run.code);
  const stderr = text(run.stderr);
  const fail = (code: HookErrorCode, detail: string): Interpreted => ({
    ok: false,
    code,
    detail,
    telemetry,
  });
  if (run.signal === null && run.code === 2) {
    const reason = stderr.trim() || refusedBy(opts.hook);
    return { ok: true, result: { answer: null, refused: { reason }, telemetry } };
  }
  if (run.signal !== null || run.code !== 0) {
    return fail("exit-status", says.exited(run.signal, run.code, tail(stderr)));
  }
  const stdout = text(run.stdout);
  if (stdout.trim() === "") return { ok: true, result: { answer: null, telemetry } };
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    if (run.stdout.truncated && opts.answerMax !== undefined && opts.answerMax < opts.max) {
      return fail("over-cap", says.overAnswerCap(opts.answerMax));
    }
    if (run.stdout.truncated) return fail("over-cap", says.truncated(opts.max));
    return fail("bad-answer", says.notJson);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
    return fail("bad-answer", says.notObject(what));
  }
  return { ok: true, result: { answer: value as Record<string, unknown>, telemetry } };
}
