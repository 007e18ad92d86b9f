/**
 * Reading GitHub's rate-limit answers: how long to wait before asking again.
 *
 * @module
 */

/** Why the client waits. */
export type WaitReason = "retry-after" | "rate-limit-reset" | "secondary";

/** A wait the client must make before trying again. */
export interface RateWait {
  reason: WaitReason;
  ms: number;
}

/** When no header says how long, GitHub's documentation says to wait at least a minute. */
export const SECONDARY_MIN_MS = 60_000;
/** A margin added to `X-RateLimit-Reset`, for clock skew. */
export const RESET_MARGIN_MS = 1_000;

/** `Retry-After` (seconds or an HTTP date) in milliseconds from `now`, if present and sane. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const s = value.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Milliseconds until `X-RateLimit-Reset` (epoch seconds) plus a margin, if present. */
export function resetMs(value: string | null, now: number): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Math.max(0, Number(value) * 1000 - now) + RESET_MARGIN_MS;
}

/**
 * The wait a rate-limited answer asks for, or undefined when the answer is not a rate limit.
 * 429 is always one; 403 only with `Retry-After`, `X-RateLimit-Remaining: 0`, or a message
 * naming a rate limit (otherwise it is a permissions error). `secondaryCount` is how many
 * header-less secondary limits this request met already (the wait doubles each time).
 */
export function rateWait(
  status: number,
  headers: Headers,
  message: string,
  now: number,
  secondaryCount: number,
): RateWait | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const after = retryAfterMs(headers.get("retry-after"), now);
  if (after !== undefined) return { reason: "retry-after", ms: after };
  if (headers.get("x-ratelimit-remaining")?.trim() === "0") {
    const reset = resetMs(headers.get("x-ratelimit-reset"), now);
    if (reset !== undefined) return { reason: "rate-limit-reset", ms: reset };
  }
  if (status === 429 || /rate limit/i.test(message)) {
    return { reason: "secondary", ms: SECONDARY_MIN_MS * 2 ** Math.min(secondaryCount, 5) };
  }
  return undefined;
}

/** Jittered exponential backoff: `base·2^(attempt-1)`, capped, times a factor in [0.5, 1). */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(raw * (0.5 + random / 2));
}
