/**
 * Turns a finished command hook run into the executor's answer: exit 0 with stdout (nothing, or
 * a JSON object), exit 2 as a refusal, anything else as a failure with the stderr tail.
 *
 * @module
 */
import type { CallResult } from "../../executor.ts";
import type { Captured } from "./_capture.ts";

/** The telemetry of one command hook run, as `hooks.ran` / `hooks.failed` carry it. */
export type Telemetry = NonNullable<CallResult["telemetry"]>;

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
  | { ok: false; message: string; telemetry: Telemetry };

/** Interprets an exited run. */
export function interpret(
  run: { code: number; signal: string | null; stdout: Captured; stderr: Captured },
  opts: { hook: string; max: number; answerMax?: number },
): Interpreted {
  const telemetry = telemetryOf(run.stdout, run.stderr, run.code);
  const stderr = text(run.stderr);
  const fail = (message: string): Interpreted => ({ ok: false, message, telemetry });
  if (run.signal === null && run.code === 2) {
    const reason = stderr.trim() || `refused by hook ${opts.hook}`;
    return { ok: true, result: { answer: null, refused: { reason }, telemetry } };
  }
  if (run.signal !== null || run.code !== 0) {
    const how = run.signal !== null
      ? `was killed by ${run.signal} (exit code ${run.code})`
      : `exited with code ${run.code}`;
    const t = tail(stderr);
    return fail(`${how}${t ? `: ${t}` : " (stderr was empty)"}`);
  }
  const stdout = text(run.stdout);
  if (stdout.trim() === "") return { ok: true, result: { answer: null, telemetry } };
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    if (run.stdout.truncated && opts.answerMax !== undefined && opts.answerMax < opts.max) {
      return fail(
        `stdout is longer than ${opts.answerMax} bytes, the cap on a hook's whole answer, and ` +
          `was cut there, so it is not valid JSON; print only the decisions, each within its ` +
          `own cap`,
      );
    }
    if (run.stdout.truncated) {
      return fail(
        `stdout is longer than maxOutputBytes (${opts.max}) and was truncated, so it is not ` +
          `valid JSON; print less or raise maxOutputBytes`,
      );
    }
    return fail(
      `stdout is not a JSON object (it is not JSON); print nothing to pass or one JSON object`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
    return fail(
      `stdout is not a JSON object (got ${what}); print nothing to pass or one JSON object`,
    );
  }
  return { ok: true, result: { answer: value as Record<string, unknown>, telemetry } };
}
