/**
 * Takes away, inside a hook's worker, what would change or reveal the-loop's process rather
 * than the worker. The hook's `Deno`, `process`, `console` and `navigator` are new objects built
 * from allowlists (`_runtime_deno.ts`, `_runtime_process.ts`, `_runtime_console.ts`), not the
 * real ones minus a denylist; storage that needs no grant (the Cache API, Web Storage,
 * IndexedDB, Web Locks — each a channel between hooks, the Cache API also disk writes) is
 * removed; the Node-compat globals that remain (`Buffer`, `clearImmediate`, `global`) are fixed
 * to their values, and the timers (`_runtime_timers.ts`) cannot kill the worker by what their
 * callbacks throw. Part of the worker runtime: embedded as text and bundled ahead of the hook,
 * never imported by the-loop itself.
 *
 * @module
 */
import { stderrConsole } from "./_runtime_console.ts";
import { denoView } from "./_runtime_deno.ts";
import { guardFs } from "./_runtime_fs.ts";
import { processView } from "./_runtime_process.ts";
import { type Loose, refused, replace, takeHost } from "./_runtime_refusals.ts";
import { guardTimers } from "./_runtime_timers.ts";

export { refused, replace } from "./_runtime_refusals.ts";

/**
 * Globals that store or share data with no permission asked: removed where present. Those
 * absent from Deno 2.9's workers are listed so a later Deno cannot bring them back unnoticed.
 */
const UNGRANTED_STORAGE = [
  "caches",
  "CacheStorage",
  "Cache",
  "localStorage",
  "sessionStorage",
  "Storage",
  "StorageEvent",
  "StorageManager",
  "indexedDB",
  "IDBFactory",
  "LockManager",
  "Lock",
  "Navigator",
  "WorkerNavigator",
];

/**
 * Node-compat globals a hook may keep; their lazy getters are replaced by their values
 * (`setImmediate`, with the other timers, by `guardTimers`).
 */
const NODE_KEPT = ["Buffer", "clearImmediate"];

/** Defines `g[key] = value` for good, or throws: a guard that did not take must not go unseen. */
function pin(g: Loose, key: string, value: unknown): void {
  Object.defineProperty(g, key, { value, writable: false, configurable: false, enumerable: true });
}

/** Deletes `key` from `g` and from every prototype of it that holds it. */
function remove(g: Loose, key: string): void {
  for (let o: Loose | null = g; o !== null; o = Object.getPrototypeOf(o)) {
    if (Object.hasOwn(o, key) && !Reflect.deleteProperty(o, key)) {
      throw new Error(`the-loop could not remove ${key} from the hook's worker`);
    }
  }
}

/** `navigator` without `locks` (shared by every worker of the process), `storage` or `gpu`. */
function navigatorView(real: Loose | undefined): Loose {
  const n = real ?? {};
  return Object.freeze({
    userAgent: n.userAgent,
    language: n.language,
    languages: Object.freeze([...(n.languages ?? [])]),
    platform: n.platform,
    hardwareConcurrency: n.hardwareConcurrency,
  });
}

/**
 * Installs every guard; runs once, before the hook's module is evaluated. Returns the printer
 * the runtime reports its own notes with (to stderr, whatever the hook does to `console`).
 */
export function guardWorker(): (text: string) => void {
  const g = globalThis as unknown as Loose;
  const host = takeHost(g); // first: reading `process` bootstraps it through Deno's internals
  const out = stderrConsole(host, g.console);
  const deno = denoView(host);
  guardFs(deno, host.deno, g); // path grants mean real paths (`_runtime_fs.ts`)
  pin(g, "Deno", Object.freeze(deno));
  pin(g, "process", processView(host, out.warn));
  pin(g, "console", out);
  guardTimers(g);
  for (const key of NODE_KEPT) if (key in g) pin(g, key, g[key]);
  pin(g, "global", g);
  pin(g, "navigator", navigatorView(g.navigator));
  for (const key of UNGRANTED_STORAGE) remove(g, key);
  replace(g, "close", refused("close()", "the-loop ends the worker when it closes the hook"));
  // every hook has a worker of its own: a channel between them would let one read another's
  // contexts (or answer for it), so there is none
  replace(
    g,
    "BroadcastChannel",
    refused("BroadcastChannel", "hooks are isolated from one another"),
  );
  // Deno's internal object: its `core` evaluates code, signals and writes to raw descriptors
  const internal = host.deno.internal;
  if (typeof internal === "symbol" && !Reflect.deleteProperty(host.deno, internal)) {
    throw new Error("the-loop could not remove Deno's internals from the hook's worker");
  }
  return host.writeErr;
}
