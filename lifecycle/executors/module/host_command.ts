/**
 * How the-loop starts a hook-host child (`isolation: "process"`): the same program in its
 * hidden `__hook-host` mode, with a V8 heap cap of the hook's budget and the runtime's room.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { isDenoCli, taskFlags } from "../../run_self.ts";

export { isDenoCli } from "../../run_self.ts";

/** The command line and extra environment of a hook-host child. */
export interface HookHostCommand {
  command: string;
  args: string[];
  /** Variables to add to the child's environment (see {@linkcode hookHostEnv}). */
  env: Record<string, string>;
}

/**
 * Room for the-loop's own runtime in a hook-host child, in MiB, added to a hook's `maxMemoryMb`
 * so that figure is the hook's own. Measured (Deno 2.9, a hook that holds nothing, calls back
 * to back): at load the child's main isolate holds about 9 MB of heap and starting the hook's
 * worker adds about 16 MB of RSS; then its RSS grows by another 30–50 MB over a million calls,
 * V8 keeping heap it grew in each of the two isolates (its heap cap is per isolate, so it cannot
 * bound their sum). With no room, such a hook at `maxMemoryMb: 16` was killed at its first calls;
 * with 32, after some thousands; with 64, once in four runs of a million.
 */
export const RUNTIME_ALLOWANCE_MB = 96;

/** The hook's budget as both caps use it: whole MiB, at least the 16 the config allows. */
export function budgetMb(maxMemoryMb: number): number {
  return Math.max(16, Math.floor(maxMemoryMb));
}

/** Options for {@linkcode hookHostCommand}; all but `maxMemoryMb` default to this process. */
export interface HookHostCommandOptions {
  /**
   * The hook's memory budget, in MiB: each of the child's V8 isolates gets this plus
   * {@linkcode RUNTIME_ALLOWANCE_MB} as its heap cap (old space).
   */
  maxMemoryMb: number;
  /** `Deno.execPath()`: `deno`/`deno.exe` means running from source, else a compiled binary. */
  execPath?: string;
  /** Absolute path of the-loop's `main.ts` (used from source only). */
  mainPath?: string;
  /** The argv after `deno` in `deno.json`'s `the-loop` task (used from source only). */
  taskWords?: string[];
  /** The current `DENO_V8_FLAGS` (compiled only: the cap is appended to it). */
  v8FlagsEnv?: string;
}

/**
 * The hook-host child's command. From source:
 * `deno run <the-loop task flags> --v8-flags=--max-old-space-size=N <abs main.ts> __hook-host`.
 * Compiled: `<the-loop> __hook-host` with `DENO_V8_FLAGS=--max-old-space-size=N` (appended to
 * any existing value) — note that Deno's compiled binaries may ignore that variable
 * (denoland/deno#19808), which is why the child also watches its own memory.
 */
export function hookHostCommand(opts: HookHostCommandOptions): HookHostCommand {
  const execPath = opts.execPath ?? Deno.execPath();
  const mb = budgetMb(opts.maxMemoryMb) + RUNTIME_ALLOWANCE_MB;
  const cap = `--max-old-space-size=${mb}`;
  if (!isDenoCli(execPath)) {
    const prior = opts.v8FlagsEnv ?? Deno.env.get("DENO_V8_FLAGS");
    return {
      command: execPath,
      args: ["__hook-host"],
      env: { DENO_V8_FLAGS: prior ? `${prior},${cap}` : cap },
    };
  }
  const mainPath = opts.mainPath ?? fileURLToPath(new URL("../../../main.ts", import.meta.url));
  const flags = taskFlags(opts.taskWords).filter((w) => !w.startsWith("--v8-flags"));
  return {
    command: execPath,
    args: ["run", ...flags, `--v8-flags=${cap}`, mainPath, "__hook-host"],
    env: {},
  };
}

/** What a hook-host child needs (upper-cased): deno's cache, temp files, proxies, CA files. */
const BASE_ENV = [
  "PATH",
  "HOME",
  "TMPDIR",
  "XDG_CACHE_HOME",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Windows
  "SYSTEMROOT",
  "USERPROFILE",
  "LOCALAPPDATA",
  "APPDATA",
  "TEMP",
  "TMP",
];

/** Options for {@linkcode hookHostEnv}. */
export interface HookHostEnvOptions {
  /** The hook's `env` grant: the names it may read, or `true`/`"inherit"` for all. */
  grant: boolean | string[] | "inherit" | undefined;
  /** The environment to pick from; default this process's. */
  env?: Record<string, string>;
}

/**
 * The environment a hook-host child starts with (`clearEnv`): what deno needs to run from its
 * cache (`PATH`, `HOME`, `XDG_CACHE_HOME`, `DENO_*` but `DENO_AUTH_TOKENS`, temp dirs, proxies, CA
 * files)
 * plus the names the hook is granted — never the-loop's tokens or other secrets, which a child
 * would otherwise carry in its process image. `undefined` (inherit everything) when the hook
 * is granted the whole environment.
 */
export function hookHostEnv(opts: HookHostEnvOptions): Record<string, string> | undefined {
  if (opts.grant === true || opts.grant === "inherit") return undefined;
  const env = opts.env ?? Deno.env.toObject();
  const granted = Array.isArray(opts.grant) ? opts.grant : [];
  const keep = (name: string) =>
    BASE_ENV.includes(name.toUpperCase()) || granted.includes(name) ||
    (name.startsWith("DENO_") && name !== "DENO_AUTH_TOKENS");
  return Object.fromEntries(Object.entries(env).filter(([name]) => keep(name)));
}
