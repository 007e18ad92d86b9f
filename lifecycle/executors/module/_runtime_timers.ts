/**
 * Timers whose callbacks cannot kill the hook's worker by what they throw. A value thrown from
 * a timer goes to Deno's own error reporting, which reads it to describe it: a Proxy whose
 * traps throw (or an Error whose `message` getter throws) makes that reporting throw, and the
 * worker dies ("Uncaught"). Here such a value is swapped for a plain Error carrying a safe
 * description before it leaves the callback; anything Deno can describe is rethrown as it is.
 * Part of the worker runtime: embedded as text and bundled ahead of the hook.
 *
 * @module
 */
import type { Loose } from "./_runtime_refusals.ts";
import { describeThrown } from "./_runtime_thrown.ts";

const isErrorSlot = (Error as unknown as { isError?: (v: unknown) => boolean }).isError;
const ErrorCtor = Error;

/** Can Deno's error reporting read `err` without running hook code that throws? */
function reportable(err: unknown): boolean {
  if (err === null || (typeof err !== "object" && typeof err !== "function")) return true;
  try {
    if (!(isErrorSlot ? isErrorSlot(err) : err instanceof ErrorCtor)) return false;
    const e = err as Record<string, unknown>;
    return [e.name, e.message, e.stack].every((v) => v === undefined || typeof v === "string");
  } catch {
    return false;
  }
}

/** `err`, or a plain Error describing it when Deno could not. */
function safe(err: unknown): unknown {
  return reportable(err) ? err : new ErrorCtor(describeThrown(err).error);
}

/** Wraps `setTimeout`, `setInterval` and `setImmediate` on the global `g`. */
export function guardTimers(g: Loose): void {
  for (const key of ["setTimeout", "setInterval", "setImmediate"]) {
    const orig = g[key];
    if (typeof orig !== "function") continue;
    const wrapped = function (this: unknown, callback: unknown, ...rest: unknown[]) {
      if (typeof callback !== "function") return orig.call(this, callback, ...rest); // refused
      return orig.call(this, function (this: unknown, ...args: unknown[]) {
        try {
          return callback.apply(this, args);
        } catch (err) {
          throw safe(err);
        }
      }, ...rest);
    };
    Object.defineProperty(wrapped, "name", { value: key });
    Object.defineProperty(g, key, {
      value: wrapped,
      writable: false,
      configurable: false,
      enumerable: true,
    });
  }
}
