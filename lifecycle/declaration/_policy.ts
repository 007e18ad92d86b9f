/**
 * An entry's failure policy: what its failure does (`onError: warn | block | suspend`, or the
 * older `required: true`, which is `block`) and, with `suspend`, how the parked operation goes
 * on (`suspendMode`, `retryBackoffMs`, `suspendTimeoutMinutes`). A key given without the value
 * that uses it, or `required` beside `onError`, is a located problem: the entry says one thing.
 *
 * @module
 */
import { type EntryCheck, show } from "./_check.ts";
import { DEFAULT_RETRY_BACKOFF_MS, type OnError, type SuspendMode } from "./entry.ts";

/** The values of `onError`. */
export const ON_ERROR: readonly OnError[] = ["warn", "block", "suspend"];
/** The values of `suspendMode`. */
export const SUSPEND_MODES: readonly SuspendMode[] = [
  "wait_for_resume",
  "retry_backoff",
  "wait_then_retry",
];
/** The longest wait `retryBackoffMs` may ask for (a minute) and how many retries at most. */
export const MAX_RETRY_WAIT_MS = 60_000;
const MAX_RETRIES = 10;

/** The policy fields of a parsed entry. */
export interface PolicyFields {
  onError: OnError;
  required: boolean;
  suspendMode?: SuspendMode;
  retryBackoffMs?: number[];
  suspendTimeoutMinutes?: number;
}

/** Reads the entry's failure policy; problems go to `e`. */
export function policyFields(e: EntryCheck): PolicyFields {
  const onError = onErrorOf(e);
  const out: PolicyFields = { onError, required: onError === "block" };
  const mode = e.raw.suspendMode === undefined ? undefined : e.choice("suspendMode", SUSPEND_MODES);
  if (e.raw.suspendMode !== undefined && onError !== "suspend") {
    e.err(["suspendMode"], needs("suspendMode", "onError: suspend", onError));
  }
  if (onError === "suspend") out.suspendMode = mode ?? "wait_for_resume";
  if (e.raw.retryBackoffMs !== undefined) {
    const waits = retryWaits(e);
    if (out.suspendMode !== "retry_backoff") {
      const has = onError !== "suspend" ? `onError: ${onError}` : `suspendMode: ${out.suspendMode}`;
      e.err(["retryBackoffMs"], needs("retryBackoffMs", "suspendMode: retry_backoff", has));
    } else if (waits) out.retryBackoffMs = waits;
  }
  if (out.suspendMode === "retry_backoff") {
    out.retryBackoffMs ??= [...DEFAULT_RETRY_BACKOFF_MS];
  }
  if (e.raw.suspendTimeoutMinutes !== undefined) {
    const minutes = e.positive("suspendTimeoutMinutes", 0, { unit: "minutes" });
    if (onError !== "suspend") {
      e.err(
        ["suspendTimeoutMinutes"],
        needs("suspendTimeoutMinutes", "onError: suspend", onError),
      );
    } else if (minutes > 0) out.suspendTimeoutMinutes = minutes;
  }
  return out;
}

/** `onError`, or what `required` says; both given is a problem at `onError`. */
function onErrorOf(e: EntryCheck): OnError {
  const required = e.bool("required", false);
  if (e.raw.onError === undefined) return required ? "block" : "warn";
  const onError = e.choice("onError", ON_ERROR) ?? "warn";
  if (e.raw.required !== undefined) {
    e.err(
      ["onError"],
      `"required" and "onError" say the same thing; keep one (required: true is ` +
        `onError: block; required: false is onError: warn)`,
    );
  }
  return onError;
}

function needs(key: string, what: string, has: string): string {
  return `"${key}" applies only with ${what} (this hook has ${has}); remove it or set ${what}`;
}

/** `retryBackoffMs`: 1–10 whole numbers of milliseconds, each ≤ a minute; undefined if wrong. */
function retryWaits(e: EntryCheck): number[] | undefined {
  const v = e.raw.retryBackoffMs;
  const what = `a list of 1 to ${MAX_RETRIES} waits in milliseconds, each a whole number ` +
    `from 0 to ${MAX_RETRY_WAIT_MS}`;
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_RETRIES) {
    e.err(["retryBackoffMs"], `must be ${what} (got ${show(v)})`);
    return undefined;
  }
  let ok = true;
  v.forEach((ms, i) => {
    if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > MAX_RETRY_WAIT_MS) {
      e.err(
        ["retryBackoffMs", i],
        `must be a whole number of milliseconds from 0 to ${MAX_RETRY_WAIT_MS} (got ${show(ms)})`,
      );
      ok = false;
    }
  });
  return ok ? v as number[] : undefined;
}
