/**
 * One hook call, as the runner makes it: call the executor with the context's JSON form and the
 * entry's time budget, apply its answer (decisions only, type-checked, all or nothing), and
 * classify what happened. Never throws: every failure becomes an outcome.
 *
 * @module
 */
import { applyAnswer, type Context, decisionNames } from "./sdk/contract.ts";
import type { Entry } from "./declaration/mod.ts";
import { timeoutMs } from "./declaration/mod.ts";
import { type CallResult, type Executor, HookTimeout, type Stuck } from "./executor.ts";
import type { PointName } from "./sdk/points.ts";

/**
 * How one call ended, as `hooks.ran` reports it; `skipped`: not called, its circuit is open.
 */
export type Disposition = "passed" | "decided" | "refused" | "failed" | "timed_out" | "skipped";

/** What one call did. */
export interface Outcome {
  disposition: Disposition;
  /** Decision fields it changed. */
  changed: string[];
  /** Why it failed (failed / timed_out). */
  error?: string;
  /** Set when the call set proceed=false (its answer, its refusal, or its required failure). */
  refusal?: string;
  /** Set on timed_out: the executor could not stop the hook. */
  leaked?: boolean;
  /** Set with leaked: whether its thread spins or is blocked. */
  stuck?: Stuck;
  /** A later hook tried to overturn an earlier refusal; its proceed/reason were undone. */
  overturnBlocked?: boolean;
  telemetry?: CallResult["telemetry"];
}

/** Does `point` have a `proceed` decision? */
export function hasProceed(point: PointName): boolean {
  return decisionNames(point).includes("proceed");
}

type Fields = Record<string, unknown>;

/**
 * Calls one hook at `point` and applies its answer to `ctx` in place. `redact` scrubs known
 * secret values from the error text (which a required failure writes into `reason`).
 */
export async function callOne(
  point: PointName,
  ctx: Context,
  entry: Entry,
  executor: Executor,
  redact: (text: string) => string = (t) => t,
  probe = false,
): Promise<Outcome> {
  const c = ctx as unknown as Fields;
  const proceedPoint = hasProceed(point);
  const before = { proceed: c.proceed, reason: c.reason };
  let telemetry: CallResult["telemetry"];
  try {
    const params = JSON.parse(JSON.stringify(ctx)) as Fields;
    const result = await executor.call(
      point,
      params,
      probe ? { timeoutMs: timeoutMs(entry), probe } : { timeoutMs: timeoutMs(entry) },
    );
    if (!result || typeof result !== "object") {
      throw new Error(`the executor returned ${String(result)} instead of a result`);
    }
    telemetry = result.telemetry;
    let changed: string[];
    if (result.refused) {
      const reason = refusalReason(redact(String(result.refused.reason ?? "")), entry.name);
      if (!proceedPoint) {
        throw new Error(
          `it exited 2 to refuse, but ${point} has no proceed decision to refuse; ` +
            `treated as a failure (its reason: ${reason})`,
        );
      }
      changed = applyAnswer(point, ctx, { proceed: false, reason }, { hook: entry.name });
    } else {
      changed = applyAnswer(point, ctx, result.answer, { hook: entry.name });
    }
    if (changed.includes("reason") && typeof c.reason === "string") {
      c.reason = redact(c.reason); // the reason is posted on the ticket
    }
    let overturnBlocked = false;
    if (proceedPoint && before.proceed === false && changed.some(isRefusalField)) {
      // A refusal stands: a later hook may not overturn or reword an earlier one's refusal.
      c.proceed = false;
      c.reason = before.reason;
      changed = changed.filter((f) => !isRefusalField(f));
      overturnBlocked = true;
    }
    const refused = proceedPoint && before.proceed !== false && c.proceed === false;
    return {
      disposition: refused ? "refused" : changed.length > 0 ? "decided" : "passed",
      changed,
      ...(refused ? { refusal: String(c.reason ?? "") } : {}),
      ...(overturnBlocked ? { overturnBlocked } : {}),
      ...(telemetry ? { telemetry } : {}),
    };
  } catch (err) {
    const error = redact(err instanceof Error ? err.message : String(err));
    telemetry ??= telemetryOf(err);
    const out: Outcome = {
      disposition: err instanceof HookTimeout ? "timed_out" : "failed",
      changed: [],
      error,
      ...(err instanceof HookTimeout ? { leaked: err.leaked } : {}),
      ...(err instanceof HookTimeout && err.stuck ? { stuck: err.stuck } : {}),
      ...(telemetry ? { telemetry } : {}),
    };
    if (entry.required && proceedPoint && c.proceed !== false) {
      c.proceed = false;
      // The reason is posted on the ticket: its first line only (no stack, no local paths);
      // the whole error stays in hooks.failed.
      c.reason = `required hook ${entry.name} failed: ${error.split("\n")[0]}`;
      out.changed = ["proceed", "reason"];
      out.refusal = c.reason as string;
    }
    return out;
  }
}

/**
 * A call the runner does not make because the hook's circuit is open. A required hook at a
 * point with a `proceed` decision refuses the operation (`reason`): it fails closed.
 */
export function skipOne(point: PointName, ctx: Context, entry: Entry, reason: string): Outcome {
  const c = ctx as unknown as Fields;
  const out: Outcome = { disposition: "skipped", changed: [] };
  if (entry.required && hasProceed(point) && c.proceed !== false) {
    c.proceed = false;
    c.reason = reason;
    out.changed = ["proceed", "reason"];
    out.refusal = reason;
  }
  return out;
}

/** The most of a command's stderr that becomes a refusal's reason, in characters. */
export const REFUSAL_REASON_MAX = 500;

/**
 * A command's exit-2 stderr as the reason posted on the ticket: already redacted, trimmed, and
 * cut to {@linkcode REFUSAL_REASON_MAX} characters (its lines kept: a refusal may explain itself
 * over a few). The whole stderr (4 KiB, redacted) stays in `hooks.ran`.
 */
function refusalReason(stderr: string, hook: string): string {
  const t = stderr.trim();
  if (t === "") return `refused by hook ${hook}`;
  if (t.length <= REFUSAL_REASON_MAX) return t;
  return `${t.slice(0, REFUSAL_REASON_MAX - 1).trimEnd()}…`;
}

function isRefusalField(f: string): boolean {
  return f === "proceed" || f === "reason";
}

/** A failure may carry the command's telemetry (exit code, capped output). */
function telemetryOf(err: unknown): CallResult["telemetry"] | undefined {
  const t = (err as { telemetry?: unknown } | null)?.telemetry;
  return t && typeof t === "object" ? t as CallResult["telemetry"] : undefined;
}
