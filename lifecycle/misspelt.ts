/**
 * A module hook's methods that look like a lifecycle point misspelt (`sesion_spawn` for
 * `session_spawn`): worked out from the method names its sandbox reported at load
 * ({@linkcode Executor.methods}), for the "did you mean" of `hooks validate`, `hooks test` and
 * a load whose `on` names a point the hook does not handle.
 *
 * @module
 */
import { didYouMean } from "../config/mod.ts";
import type { Executor } from "./executor.ts";
import { implementsNoPoint, misspeltHint, misspeltNote, type MisspeltPoint } from "./_messages.ts";
import { isPointName, POINT_NAMES } from "./sdk/points.ts";

/**
 * The methods of `exec`'s hook that are not points but are close to one it does not handle
 * (each with that point); none for an executor that does not report its methods.
 */
export function misspeltPoints(exec: Pick<Executor, "handles" | "methods">): MisspeltPoint[] {
  const found: MisspeltPoint[] = [];
  for (const method of exec.methods?.() ?? []) {
    if (isPointName(method)) continue;
    const point = didYouMean(method, POINT_NAMES);
    if (point !== undefined && isPointName(point) && !exec.handles(point)) {
      found.push({ method, point });
    }
  }
  return found;
}

/**
 * `hooks validate`'s problem for a module hook that implements no point: with a did-you-mean
 * when one of its methods looks like a point misspelt.
 */
export function noPointProblem(exec: Pick<Executor, "handles" | "methods">): string {
  return implementsNoPoint(misspeltPoints(exec));
}

/** `hooks validate`'s notes for a hook that implements points: one per misspelt-looking method. */
export function misspeltNotes(hook: string, exec: Pick<Executor, "handles" | "methods">): string[] {
  return misspeltPoints(exec).map((m) => misspeltNote(hook, m));
}

/** ` (did you mean <point>? …)` when a method of the hook looks like `point` misspelt, else `""`. */
export function misspeltHintFor(
  exec: Pick<Executor, "handles" | "methods">,
  point: string,
): string {
  return misspeltHint(misspeltPoints(exec).filter((m) => m.point === point));
}
