/**
 * How the-loop starts a hook-host child (`isolation: "process"`): the same program in its
 * hidden `__hook-host` mode, with a V8 heap cap.
 *
 * @module
 */
import denoJson from "../../deno.json" with { type: "json" };
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/** The command line and extra environment of a hook-host child. */
export interface HookHostCommand {
  command: string;
  args: string[];
  /** Variables to add to the inherited environment. */
  env: Record<string, string>;
}

/** Options for {@linkcode hookHostCommand}; all but `maxMemoryMb` default to this process. */
export interface HookHostCommandOptions {
  /** The child's V8 heap cap (old space), in MiB. */
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

/** Is `execPath` the deno CLI itself (running from source) rather than a compiled the-loop? */
export function isDenoCli(execPath: string): boolean {
  const base = basename(execPath).toLowerCase();
  return base === "deno" || base === "deno.exe";
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
  const cap = `--max-old-space-size=${Math.max(16, Math.floor(opts.maxMemoryMb))}`;
  if (!isDenoCli(execPath)) {
    const prior = opts.v8FlagsEnv ?? Deno.env.get("DENO_V8_FLAGS");
    return {
      command: execPath,
      args: ["__hook-host"],
      env: { DENO_V8_FLAGS: prior ? `${prior},${cap}` : cap },
    };
  }
  const mainPath = opts.mainPath ?? fileURLToPath(new URL("../../main.ts", import.meta.url));
  const words = opts.taskWords ?? denoJson.tasks["the-loop"].split(/\s+/).slice(1);
  const flags = words.filter((w) => w !== "main.ts" && !w.startsWith("--v8-flags"));
  return {
    command: execPath,
    args: [...flags, `--v8-flags=${cap}`, mainPath, "__hook-host"],
    env: {},
  };
}
