/**
 * What a parked operation is, as the runner leaves it for its caller: a hook declared
 * `onError: suspend` failed at a point with a `proceed` decision, so the chain stopped there
 * and the operation must wait ({@linkcode Suspension}, read with {@linkcode suspensionOf}),
 * and how the chain goes on once it is resumed ({@linkcode ResumeFrom}). The park itself — its
 * durable record, the deliveries it holds, its comments and resume commands — is the
 * dispatcher's; the runner only stops, says why, and picks up where it stopped.
 *
 * @module
 */
import type { SuspendMode } from "./declaration/entry.ts";
import type { PointName } from "./sdk/points.ts";

export type { SuspendMode };

/** A suspend hook failed at a proceed point: the chain stopped there and the operation must park. */
export interface Suspension {
  /** The failing hook's name. */
  hook: string;
  point: PointName;
  /** How the park ends: retry_backoff that ran out becomes wait_for_resume. */
  mode: "wait_for_resume" | "wait_then_retry";
  /** What was asked for (retry_backoff kept here when it fell back). */
  declared: SuspendMode;
  /** Why the last call failed: scrubbed of secret values, its first line. */
  error: string;
  /** Calls made (1 + retries). */
  attempts: number;
  /** The entry's `suspendTimeoutMinutes`, when set. */
  timeoutMinutes?: number;
}

/** How a resumed chain goes on. */
export interface ResumeFrom {
  /** The hook whose failure parked the operation: the hooks before it ran already. */
  hook: string;
  /**
   * `true` (wait_then_retry): call it once more, its failure final (it refuses as `block`
   * would); `false` (wait_for_resume): skip it too, its decisions staying the defaults.
   */
  rerun: boolean;
}

const suspensions = new WeakMap<object, Suspension>();

/**
 * The suspension a {@linkcode Runner.run} recorded on `ctx`; `undefined` when its chain ran to
 * the end (or refused). The caller parks the operation instead of carrying it on.
 */
export function suspensionOf(ctx: object): Suspension | undefined {
  return suspensions.get(ctx);
}

/** Records `s` on `ctx` (the runner's, once per run). */
export function recordSuspension(ctx: object, s: Suspension): void {
  suspensions.set(ctx, s);
}

/** Forgets a suspension recorded on `ctx` (a resumed run of the same object starts clean). */
export function clearSuspension(ctx: object): void {
  suspensions.delete(ctx);
}
