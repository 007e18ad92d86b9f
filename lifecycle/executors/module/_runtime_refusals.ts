/**
 * The small helpers every worker-runtime guard uses: a refusing stand-in, a fixed property, and
 * the handles on the real process the guards take before the hook's views replace them. Part
 * of the worker runtime: embedded as text and bundled ahead of the hook, never imported by
 * the-loop itself.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
export type Loose = Record<PropertyKey, any>;

/** Why a refusal that would touch the-loop's process is refused. */
export const HOST = "it would act on the-loop's process, not the hook's worker";

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

/** Defines `obj[key]` as a getter that throws `<what> is not available to hooks: <why>`. */
export function refusedGetter(obj: Loose, key: PropertyKey, what: string, why: string): void {
  Object.defineProperty(obj, key, { get: refused(what, why), enumerable: true });
}

// Taken before any hook code runs, so a hook cannot swap them for its own.
const apply = Reflect.apply;
const split = String.prototype.split;
const join = Array.prototype.join;

/** Blob URL → the file URL it stands for (a natively loaded hook's modules; set at init). */
const renames: [string, string][] = [];

/** Sets what {@linkcode renamed} rewrites: `[blob URL, file URL]` pairs; others are ignored. */
export function setNames(names: unknown): void {
  if (!Array.isArray(names)) return;
  for (let i = 0; i < names.length; i++) {
    const [from, to] = names[i] ?? [];
    if (typeof from === "string" && from.startsWith("blob:") && typeof to === "string") {
      renames[renames.length] = [from, to];
    }
  }
}

/** `text` with every blob URL of the hook's modules written as the file it stands for. */
export function renamed(text: string): string {
  try {
    for (let i = 0; i < renames.length; i++) {
      text = apply(join, apply(split, text, [renames[i][0]]), [renames[i][1]]);
    }
  } catch { /* a hook that broke the built-ins: its text as it is */ }
  return text;
}

/** What the guards take from the worker before the hook's views hide it. */
export interface Host {
  /** The worker's real `Deno` namespace. */
  deno: Loose;
  /** The worker's real Node-compat `process` (read first: reading it bootstraps it). */
  process: Loose | undefined;
  /** The-loop's pid (a worker shares its process) and its parent's. */
  pid: number;
  ppid: number;
  /** Writes `text` to the-loop's stderr; never throws. */
  writeErr(text: string): void;
}

/** Takes the {@linkcode Host} handles from the global `g`; call before any view replaces them. */
export function takeHost(g: Loose): Host {
  let process: Loose | undefined;
  try {
    process = g.process;
  } catch { /* no Node-compat process in this runtime */ }
  const deno = g.Deno;
  const stderr = deno.stderr;
  const writeSync = stderr.writeSync;
  const encoder = new TextEncoder();
  return {
    deno,
    process,
    pid: deno.pid,
    ppid: deno.ppid,
    writeErr(text: string): void {
      try {
        let bytes = encoder.encode(renamed(text));
        while (bytes.length > 0) bytes = bytes.subarray(writeSync.call(stderr, bytes));
      } catch { /* stderr is gone: nothing to tell */ }
    },
  };
}

/**
 * `kill` for the worker. Signalling this very process needs no permission in Deno (and a pid
 * past 2³¹ wraps round to it), so a hook could kill or freeze the-loop; a pid ≤ 0 is a process
 * group, the parent may be the-loop itself (under `isolation: process`). Those are refused; any
 * other pid goes through the permission check (`run`) as before.
 */
export function guardedKill(
  what: string,
  host: Host,
  orig: (pid: number, signal?: unknown) => unknown,
): (pid: unknown, signal?: unknown) => unknown {
  return function (pid: unknown, signal?: unknown) {
    if (
      typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0 || pid > 0x7fffffff ||
      pid === host.pid || pid === host.ppid
    ) {
      throw new Error(
        `${what} is not available to hooks for this process or a process group (or its ` +
          "parent): it would signal the-loop itself, not the hook's worker",
      );
    }
    return orig(pid, signal);
  };
}
