/**
 * The Node-compat `process` a hook sees: a small frozen object built from an allowlist, never
 * the real one (whose internals — `_kill`, `binding`, `reallyExit`, `title`, its event emitter —
 * act on the-loop's process). It keeps what portable code reads: `nextTick`, `hrtime`,
 * `memoryUsage`, `uptime`, `emitWarning` (to stderr), `platform`, `arch`, `version(s)`, and
 * `stdout`/`stderr` that write to the-loop's stderr. Functions a hook might reach for but must
 * not use refuse with a reason, and so does setting `title`; the host's data (`pid`, `ppid`,
 * `argv`, `argv0`, `execPath`, `execArgv`, `title`, `env` — use `Deno.env.get`, which the grants
 * govern) is absent. Part of the worker runtime: embedded as text and bundled ahead of the hook.
 *
 * @module
 */
import {
  guardedKill,
  HOST,
  type Host,
  type Loose,
  refused,
  refusedGetter,
} from "./_runtime_refusals.ts";

const BUILTINS = "Node built-ins reach around the hook's sandbox; use web APIs (fetch, " +
  "Deno.readTextFile), which the hook's permissions govern";

/** Functions that refuse, by name → why. */
const REFUSED: Record<string, string> = {
  exit: "return or throw to end the call",
  reallyExit: HOST,
  abort: HOST,
  _kill: HOST,
  chdir: HOST,
  cwd: "the-loop's working directory is not the hook's: resolve paths with this.resolvePath()",
  umask: HOST,
  dlopen: BUILTINS,
  binding: BUILTINS,
  _linkedBinding: BUILTINS,
  getBuiltinModule: BUILTINS,
  openStdin: "a hook's input is the context it is called with",
  loadEnvFile: "read a granted variable with Deno.env.get()",
  setuid: HOST,
  setgid: HOST,
  seteuid: HOST,
  setegid: HOST,
  setgroups: HOST,
  initgroups: HOST,
};

const EVENTS = [
  "on",
  "once",
  "off",
  "addListener",
  "removeListener",
  "prependListener",
  "prependOnceListener",
  "emit",
];

/** A write-only stream that goes to the-loop's stderr (`process.stdout` and `process.stderr`). */
function stderrStream(host: Host): Loose {
  const decoder = new TextDecoder();
  return Object.freeze({
    isTTY: false,
    write(chunk: unknown, ...rest: unknown[]): boolean {
      host.writeErr(
        typeof chunk === "string"
          ? chunk
          : chunk instanceof Uint8Array
          ? decoder.decode(chunk)
          : String(chunk),
      );
      const done = rest.at(-1);
      if (typeof done === "function") queueMicrotask(() => done());
      return true;
    },
  });
}

/** `process.on(...)` and friends: signals are the-loop's; other events are not the hook's. */
function refusedEvents(key: string): (event?: unknown) => never {
  return function (event?: unknown) {
    const name = typeof event === "string" ? event : typeof event === "symbol" ? "a symbol" : "";
    const why = /^SIG/.test(name)
      ? HOST
      : "a hook's worker has no process events; handle errors with try/catch in the point method";
    throw new Error(`process.${key}(${JSON.stringify(name)}) is not available to hooks: ${why}`);
  };
}

/** The frozen `process` for the hook, built from `host.process` (or bare, when there is none). */
export function processView(host: Host, warn: (...args: unknown[]) => void): Loose {
  const p = host.process;
  const view: Loose = {};
  Object.defineProperty(view, Symbol.toStringTag, { value: "process" });
  view.platform = p?.platform ?? host.deno.build.os;
  view.arch = p?.arch ?? host.deno.build.arch;
  view.version = p?.version ?? `v${host.deno.version.deno}`;
  view.versions = Object.freeze({ ...(p?.versions ?? {}) });
  view.nextTick = function nextTick(fn: unknown, ...args: unknown[]): void {
    if (typeof fn !== "function") {
      throw new TypeError("process.nextTick(fn): fn must be a function");
    }
    queueMicrotask(() => fn(...args));
  };
  const hrtime = (time?: [number, number]) => p!.hrtime(time);
  hrtime.bigint = () => p!.hrtime.bigint();
  if (p) view.hrtime = hrtime;
  const memoryUsage = () => {
    const m = host.deno.memoryUsage();
    return { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external };
  };
  memoryUsage.rss = () => host.deno.memoryUsage().rss;
  view.memoryUsage = memoryUsage;
  if (p) view.uptime = () => p.uptime();
  view.emitWarning = (warning: unknown) => {
    const text = warning instanceof Error ? `${warning.name}: ${warning.message}` : warning;
    warn(`(hook) Warning: ${String(text)}`);
  };
  view.stdout = stderrStream(host);
  view.stderr = view.stdout;
  refusedGetter(view, "stdin", "process.stdin", "a hook's input is the context it is called with");
  // absent to read, refused to set: it would rename the-loop's process
  Object.defineProperty(view, "title", {
    get: () => undefined,
    set: refused("setting process.title", HOST),
  });
  for (const [key, why] of Object.entries(REFUSED)) view[key] = refused(`process.${key}()`, why);
  for (const key of EVENTS) view[key] = refusedEvents(key);
  view.kill = guardedKill("process.kill()", host, (pid, sig) => {
    if (!p) throw new Error("process.kill() is not available to hooks: use Deno.kill()");
    return p.kill(pid, sig) === true;
  });
  return Object.freeze(view);
}
