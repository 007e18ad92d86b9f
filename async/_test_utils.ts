/**
 * Helpers for the toolkit's tests: waiting for a condition, and a signal that counts its
 * listeners (to see that a wait took its listener with it).
 *
 * @module
 */
import { delay } from "./delay.ts";

/** Resolves once `check()` holds; throws naming `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(1);
  }
}

/** An abort controller whose signal counts the `abort` listeners it holds. */
export function countingController(): { ctl: AbortController; listeners: () => number } {
  const ctl = new AbortController();
  const held = new Set<unknown>();
  const add = ctl.signal.addEventListener.bind(ctl.signal);
  const remove = ctl.signal.removeEventListener.bind(ctl.signal);
  ctl.signal.addEventListener = (type: string, fn: unknown, opts?: unknown) => {
    if (type === "abort") held.add(fn);
    add(type, fn as EventListener, opts as AddEventListenerOptions);
  };
  ctl.signal.removeEventListener = (type: string, fn: unknown, opts?: unknown) => {
    if (type === "abort") held.delete(fn);
    remove(type, fn as EventListener, opts as EventListenerOptions);
  };
  add("abort", () => held.clear(), { once: true }); // once-listeners go when it fires
  return { ctl, listeners: () => held.size };
}
