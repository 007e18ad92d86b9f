/**
 * Takes away, inside a hook's worker, what would change the-loop's process rather than the
 * worker: signal handlers, exit, the working directory, permission prompts, the host's stdin
 * and stdout (in a hook-host child they carry the protocol). Part of the worker runtime:
 * embedded as text and bundled ahead of the hook, never imported by the-loop itself.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
type Loose = Record<string, any>;

function refused(what: string, why: string): () => never {
  return () => {
    throw new Error(`${what} is not available to hooks: ${why}`);
  };
}

function replace(obj: Loose, key: string, value: unknown): void {
  try {
    Object.defineProperty(obj, key, { value, configurable: false, writable: false });
  } catch { /* not configurable: left as is */ }
}

function guardDeno(d: Loose): void {
  const host = "it would act on the-loop's process, not the hook's worker";
  replace(d, "exit", refused("Deno.exit()", "return or throw to end the call"));
  replace(d, "addSignalListener", refused("Deno.addSignalListener()", host));
  replace(d, "removeSignalListener", refused("Deno.removeSignalListener()", host));
  replace(d, "chdir", refused("Deno.chdir()", host));
  replace(d, "umask", refused("Deno.umask()", host));
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
  const host = "it would act on the-loop's process, not the hook's worker";
  replace(p, "exit", refused("process.exit()", "return or throw to end the call"));
  replace(p, "abort", refused("process.abort()", host));
  replace(p, "reallyExit", refused("process.reallyExit()", host));
  for (const key of ["on", "once", "addListener", "prependListener", "prependOnceListener"]) {
    const orig = p[key];
    if (typeof orig !== "function") continue;
    replace(p, key, function (this: unknown, event: unknown, ...rest: unknown[]) {
      if (typeof event === "string" && /^SIG/.test(event)) {
        throw new Error(`process.${key}("${event}") is not available to hooks: ${host}`);
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
  guardDeno(g.Deno);
  guardProcess(g.process);
  guardConsole(g.console);
  replace(g, "close", refused("close()", "the-loop ends the worker when it closes the hook"));
}
