/**
 * Takes away, inside a hook's worker, what would change the-loop's process rather than the
 * worker: signals (to itself as well as handlers), exit, the working directory, permission
 * prompts, Node built-ins reached without an import, the host's stdin and stdout (in a
 * hook-host child they carry the protocol). Part of the worker runtime: embedded as text and
 * bundled ahead of the hook, never imported by the-loop itself.
 *
 * @module
 */
// deno-lint-ignore no-explicit-any
type Loose = Record<string, any>;

const HOST = "it would act on the-loop's process, not the hook's worker";

/** A function (callable and constructible) that throws `<what> is not available to hooks`. */
export function refused(what: string, why: string): () => never {
  return function () {
    throw new Error(`${what} is not available to hooks: ${why}`);
  };
}

/** Defines `obj[key]` as a fixed `value`; left as is when the property cannot be redefined. */
export function replace(obj: Loose, key: PropertyKey, value: unknown): void {
  try {
    Object.defineProperty(obj, key, { value, configurable: false, writable: false });
  } catch { /* not configurable: left as is */ }
}

/**
 * `kill` for the worker: signalling this very process (or a process group, pid ≤ 0) needs no
 * permission in Deno, and would kill or freeze the-loop; other pids go through the permission
 * check (`run`) as before.
 */
function guardedKill(what: string, orig: (pid: number, sig?: unknown) => unknown) {
  const self = (globalThis as unknown as Loose).Deno.pid;
  return function (pid: unknown, signal?: unknown) {
    if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0 || pid === self) {
      throw new Error(
        `${what} is not available to hooks for this process or a process group: ` +
          "it would signal the-loop itself, not the hook's worker",
      );
    }
    return orig(pid, signal);
  };
}

function guardDeno(d: Loose): void {
  replace(d, "exit", refused("Deno.exit()", "return or throw to end the call"));
  replace(d, "addSignalListener", refused("Deno.addSignalListener()", HOST));
  replace(d, "removeSignalListener", refused("Deno.removeSignalListener()", HOST));
  replace(d, "chdir", refused("Deno.chdir()", HOST));
  replace(d, "umask", refused("Deno.umask()", HOST));
  replace(d, "kill", guardedKill("Deno.kill()", d.kill.bind(d)));
  const perms = d.permissions;
  const ask = "grant it in the hook's declaration (permissions)";
  replace(perms, "request", refused("Deno.permissions.request()", ask));
  replace(perms, "requestSync", refused("Deno.permissions.requestSync()", ask));
  replace(d, "stdout", d.stderr);
  Object.defineProperty(d, "stdin", {
    get: refused("Deno.stdin", "a hook's input is the context it is called with"),
    configurable: false,
  });
}

function guardProcess(p: Loose | undefined): void {
  if (!p) return;
  replace(p, "exit", refused("process.exit()", "return or throw to end the call"));
  replace(p, "abort", refused("process.abort()", HOST));
  replace(p, "reallyExit", refused("process.reallyExit()", HOST));
  if (typeof p.kill === "function") replace(p, "kill", guardedKill("process.kill()", p.kill));
  const builtins = "Node built-ins reach around the hook's sandbox; use web APIs (fetch, " +
    "Deno.readTextFile), which the hook's permissions govern";
  replace(p, "getBuiltinModule", refused("process.getBuiltinModule()", builtins));
  replace(p, "binding", refused("process.binding()", builtins));
  replace(p, "_linkedBinding", refused("process._linkedBinding()", builtins));
  replace(p, "openStdin", refused("process.openStdin()", "a hook's input is its context"));
  for (const key of ["on", "once", "addListener", "prependListener", "prependOnceListener"]) {
    const orig = p[key];
    if (typeof orig !== "function") continue;
    replace(p, key, function (this: unknown, event: unknown, ...rest: unknown[]) {
      if (typeof event === "string" && /^SIG/.test(event)) {
        throw new Error(`process.${key}("${event}") is not available to hooks: ${HOST}`);
      }
      return orig.call(this, event, ...rest);
    });
  }
  try {
    Object.defineProperty(p, "stdout", { get: () => p.stderr, configurable: false });
    Object.defineProperty(p, "stdin", {
      get: refused("process.stdin", "a hook's input is the context it is called with"),
      configurable: false,
    });
  } catch { /* not configurable: left as is */ }
}

function guardConsole(c: Loose): void {
  // In a hook-host child stdout is the protocol channel: everything a hook prints goes to stderr.
  for (const key of ["log", "info", "debug", "dir", "dirxml", "table", "group", "groupCollapsed"]) {
    const err = c.error.bind(c);
    replace(c, key, (...args: unknown[]) => err(...args));
  }
}

/** Installs every guard; runs once, before the hook's module is evaluated. */
export function guardWorker(): void {
  const g = globalThis as unknown as Loose;
  guardProcess(g.process); // first: reading `process` may bootstrap it through Deno's internals
  guardDeno(g.Deno);
  guardConsole(g.console);
  replace(g, "close", refused("close()", "the-loop ends the worker when it closes the hook"));
  // every hook has a worker of its own: a channel between them would let one read another's
  // contexts (or answer for it), so there is none
  replace(
    g,
    "BroadcastChannel",
    refused("BroadcastChannel", "hooks are isolated from one another"),
  );
}
