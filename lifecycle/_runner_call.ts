/**
 * One hook call, as the runner makes it: call the executor with the context's JSON form and the
 * entry's time budget ({@linkcode ask}), apply its answer — decisions only, type-checked, all or
 * nothing — or the failure it is ({@linkcode HookCall}), and classify what happened. Never
 * throws: every failure becomes an {@linkcode Outcome}.
 *
 * Redaction happens here, once: everything a hook produced — its answer's reason, a command's
 * refusal and output, the error it failed with — is scrubbed of the declaration's secret values
 * as it becomes the call's outcome, the one way a hook's answer or error leaves for the context,
 * the events, the warnings and the circuits (none of which redact again). It is scrubbed before
 * it is cut (a refusal to 500 characters, a failure to its first line), so a secret cut in half
 * cannot slip past.
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import { applyAnswer, type Context, decisionNames } from "./sdk/contract.ts";
import type { Entry } from "./declaration/mod.ts";
import { timeoutMs } from "./declaration/mod.ts";
import {
  type CallResult,
  type Executor,
  HookTimeout,
  type Stuck,
  type Telemetry,
} from "./executor.ts";
import { notAResult, refusedBy, refusedWithoutProceed, requiredFailed } from "./_messages.ts";
import type { PointName } from "./sdk/points.ts";

/**
 * How one call ended, as `hooks.ran` reports it; `skipped`: not called, its circuit is open.
 */
export type Disposition = "passed" | "decided" | "refused" | "failed" | "timed_out" | "skipped";

/** What one call did; every text in it is scrubbed of secret values. */
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
  telemetry?: Telemetry;
}

/** Does `point` have a `proceed` decision? */
export function hasProceed(point: PointName): boolean {
  return decisionNames(point).includes("proceed");
}

/** Scrubs known secret values from a text. */
export type Redact = (text: string) => string;

/** What an error says, scrubbed: how every failure's text enters an outcome or a warning. */
export function errorText(err: unknown, redact: Redact): string {
  return redact(messageOf(err));
}

type Fields = Record<string, unknown>;

/** Options for {@linkcode callOne}. */
export interface CallOneOptions {
  /** Scrubs the declaration's secret values; default: nothing to scrub. */
  redact?: Redact;
  /** This call is its circuit's probe (see `CallOptions.probe`). */
  probe?: boolean;
}

/** Calls one hook at `point` and applies its answer to `ctx` in place. Never throws. */
export async function callOne(
  point: PointName,
  ctx: Context,
  entry: Entry,
  executor: Executor,
  opts: CallOneOptions = {},
): Promise<Outcome> {
  const call = new HookCall(point, ctx, entry, opts.redact ?? ((t) => t));
  let result: CallResult;
  try {
    result = await ask(executor, point, ctx, entry, opts.probe ?? false);
  } catch (err) {
    return call.failed(err);
  }
  try {
    return call.answered(result);
  } catch (err) {
    return call.failed(err, result.telemetry);
  }
}

/** Calls the executor with the context's JSON form and the entry's time budget. */
async function ask(
  executor: Executor,
  point: PointName,
  ctx: Context,
  entry: Entry,
  probe: boolean,
): Promise<CallResult> {
  const params = JSON.parse(JSON.stringify(ctx)) as Fields;
  const budget = { timeoutMs: timeoutMs(entry) };
  const result = await executor.call(point, params, probe ? { ...budget, probe } : budget);
  if (!result || typeof result !== "object") throw new Error(notAResult(result));
  return result;
}

/**
 * A call's answer or failure, applied to the context in place — the way std's YAML parser
 * hands its work to a `LoaderState`: each step of the rules is a method.
 */
class HookCall {
  readonly #point: PointName;
  readonly #ctx: Fields;
  readonly #entry: Entry;
  readonly #scrub: Redact;
  readonly #proceedPoint: boolean;
  /** The refusal as earlier hooks left it, which this one may not overturn. */
  readonly #before: { proceed: unknown; reason: unknown };

  constructor(point: PointName, ctx: Context, entry: Entry, redact: Redact) {
    this.#point = point;
    this.#ctx = ctx as unknown as Fields;
    this.#entry = entry;
    this.#scrub = redact;
    this.#proceedPoint = hasProceed(point);
    this.#before = { proceed: this.#ctx.proceed, reason: this.#ctx.reason };
  }

  /**
   * Applies what the hook answered: a command's refusal, or its decisions. Throws what cannot
   * be applied (a fact, a wrong type, a refusal where no `proceed` decision exists): the caller
   * makes it a failure.
   */
  answered(result: CallResult): Outcome {
    const telemetry = this.#telemetry(result.telemetry);
    let changed = result.refused
      ? this.#refuse(String(result.refused.reason ?? ""))
      : applyAnswer(this.#point, this.#ctx as unknown as Context, result.answer, {
        hook: this.#entry.name,
      });
    if (changed.includes("reason") && typeof this.#ctx.reason === "string") {
      this.#ctx.reason = this.#scrub(this.#ctx.reason); // the reason is posted on the ticket
    }
    const overturnBlocked = this.#keepEarlierRefusal(changed);
    if (overturnBlocked) changed = changed.filter((f) => !isRefusalField(f));
    const refused = this.#proceedPoint && this.#before.proceed !== false &&
      this.#ctx.proceed === false;
    return {
      disposition: refused ? "refused" : changed.length > 0 ? "decided" : "passed",
      changed,
      ...(refused ? { refusal: String(this.#ctx.reason ?? "") } : {}),
      ...(overturnBlocked ? { overturnBlocked } : {}),
      ...(telemetry ? { telemetry } : {}),
    };
  }

  /**
   * The call failed: it threw, timed out, or answered what cannot be applied. A required hook
   * at a point with a `proceed` decision refuses the operation (it fails closed).
   */
  failed(err: unknown, answered?: Telemetry): Outcome {
    const error = errorText(err, this.#scrub);
    const telemetry = this.#telemetry(answered ?? telemetryOf(err));
    const out: Outcome = {
      disposition: err instanceof HookTimeout ? "timed_out" : "failed",
      changed: [],
      error,
      ...(err instanceof HookTimeout ? { leaked: err.leaked } : {}),
      ...(err instanceof HookTimeout && err.stuck ? { stuck: err.stuck } : {}),
      ...(telemetry ? { telemetry } : {}),
    };
    if (this.#entry.required && this.#proceedPoint && this.#ctx.proceed !== false) {
      // The reason is posted on the ticket: its first line only (no stack, no local paths);
      // the whole error stays in hooks.failed.
      const reason = requiredFailed(this.#entry.name, error);
      this.#ctx.proceed = false;
      this.#ctx.reason = reason;
      out.changed = ["proceed", "reason"];
      out.refusal = reason;
    }
    return out;
  }

  /** A command's exit 2: refuses the operation, its stderr (scrubbed, then cut) the reason. */
  #refuse(stderr: string): string[] {
    const reason = refusalReason(this.#scrub(stderr), this.#entry.name);
    if (!this.#proceedPoint) throw new Error(refusedWithoutProceed(this.#point, reason));
    return applyAnswer(this.#point, this.#ctx as unknown as Context, {
      proceed: false,
      reason,
    }, { hook: this.#entry.name });
  }

  /**
   * A refusal stands: a later hook may not overturn or reword an earlier one's refusal. Undoes
   * this call's proceed/reason if it tried; says whether it did.
   */
  #keepEarlierRefusal(changed: string[]): boolean {
    if (!this.#proceedPoint || this.#before.proceed !== false) return false;
    if (!changed.some(isRefusalField)) return false;
    this.#ctx.proceed = false;
    this.#ctx.reason = this.#before.reason;
    return true;
  }

  /** A command's output, scrubbed (it goes into `hooks.ran`). */
  #telemetry(t: Telemetry | undefined): Telemetry | undefined {
    if (!t || typeof t !== "object") return undefined;
    return {
      ...t,
      ...(t.stdout !== undefined ? { stdout: this.#scrub(t.stdout) } : {}),
      ...(t.stderr !== undefined ? { stderr: this.#scrub(t.stderr) } : {}),
    };
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
 * A command's exit-2 stderr as the reason posted on the ticket: already scrubbed, trimmed, and
 * cut to {@linkcode REFUSAL_REASON_MAX} characters (its lines kept: a refusal may explain itself
 * over a few). The whole stderr (4 KiB, scrubbed) stays in `hooks.ran`.
 */
function refusalReason(stderr: string, hook: string): string {
  const t = stderr.trim();
  if (t === "") return refusedBy(hook);
  if (t.length <= REFUSAL_REASON_MAX) return t;
  return `${t.slice(0, REFUSAL_REASON_MAX - 1).trimEnd()}…`;
}

function isRefusalField(f: string): boolean {
  return f === "proceed" || f === "reason";
}

/** A failure may carry the command's telemetry (exit code, capped output). */
function telemetryOf(err: unknown): Telemetry | undefined {
  return (err as { telemetry?: Telemetry } | null)?.telemetry;
}
