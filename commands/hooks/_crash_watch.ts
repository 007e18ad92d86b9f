/**
 * `hooks validate` watches each loaded module hook for a moment: a hook whose worker dies on
 * its own right after loading (an error thrown from a timer, an unhandled rejection, a runtime
 * guard defeated) loads fine and then restarts in a loop in a daemon until its circuit opens.
 * Better to say so before a daemon ever loads it.
 *
 * @module
 */
import { delay } from "../../async/mod.ts";
import { plural } from "../../errors.ts";
import type { Executor } from "../../lifecycle/mod.ts";

/** How long a loaded hook is watched, ms. */
const WATCH_MS = 300;

/** What the watch saw: the deaths of its own, or nothing. */
export interface Crashes {
  crashes: number;
  restarts: number;
  lastCrash: string;
}

/**
 * Waits up to `ms` (less once a death is seen) and reports the deaths of `exec`'s worker or
 * process meanwhile. Executors that run nothing of their own (remote, command) see none.
 */
export async function watchForCrashes(exec: Executor, ms = WATCH_MS): Promise<Crashes | undefined> {
  if (!exec.status) return undefined;
  const deadline = performance.now() + ms;
  for (
    let left = ms;
    exec.status().crashes === 0 && left > 0;
    left = deadline - performance.now()
  ) {
    await delay(Math.min(25, left));
  }
  const s = exec.status();
  if (s.crashes === 0) return undefined;
  return { crashes: s.crashes, restarts: s.restarts, lastCrash: s.lastCrash ?? "unknown" };
}

/** The problem's text. */
export function crashesText(c: Crashes, ms = WATCH_MS): string {
  return `its worker died on its own ${plural(c.crashes, "time")} within ` +
    `${ms} ms of loading (last: ${c.lastCrash}): an error thrown from a timer or a microtask, ` +
    "or an unhandled rejection, reached the-loop. A daemon would restart it with a backoff and " +
    "open its circuit after repeated failures; catch the error inside the hook";
}
