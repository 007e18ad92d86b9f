/**
 * The `console` a hook sees: a new one whose every method prints to the-loop's stderr. The
 * worker's own console prints `log`, `count`, `timeLog`, `timeEnd`, `table`, `clear`… on the
 * process's stdout — where `hooks test --format json` prints its result, and where a hook-host
 * child speaks its protocol — so it is replaced whole, not method by method. Part of the worker
 * runtime: embedded as text and bundled ahead of the hook.
 *
 * @module
 */
import type { Host, Loose } from "./_runtime_refusals.ts";

type ConsoleClass = new (print: (msg: string, level: number) => void) => Loose;

/** A plain printer for a method the runtime's Console class lacks: its arguments, inspected. */
function plainMethod(host: Host, key: string): (...args: unknown[]) => void {
  const inspect = host.deno.inspect;
  return (...args: unknown[]) => {
    let text: string;
    try {
      text = args.map((a) => typeof a === "string" ? a : inspect(a)).join(" ");
    } catch {
      text = `console.${key}(…): its arguments could not be printed`;
    }
    host.writeErr(`${text}\n`);
  };
}

/**
 * A console for the hook that writes everything to stderr: Deno's own Console class (from
 * `Deno[Deno.internal]`, so formatting, counters and timers behave as usual) given a printer
 * bound to stderr, plus a plain stderr printer for every other function-valued member of
 * `original`, so no method of the worker's console survives.
 */
export function stderrConsole(host: Host, original: Loose): Loose {
  const internal = host.deno[host.deno.internal];
  const Console = internal?.Console as ConsoleClass | undefined;
  let made: Loose | undefined;
  if (typeof Console === "function") {
    try {
      made = new Console((msg: string) => host.writeErr(msg));
    } catch { /* a runtime whose Console takes something else: plain printers below */ }
  }
  const out: Loose = made ?? {};
  for (const key of Reflect.ownKeys(original)) {
    if (typeof key !== "string") continue;
    let value: unknown;
    try {
      value = original[key];
    } catch {
      continue;
    }
    if (typeof value === "function" && typeof out[key] !== "function") {
      out[key] = plainMethod(host, key);
    }
  }
  return out;
}
