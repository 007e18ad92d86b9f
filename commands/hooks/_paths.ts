/**
 * Where `hooks init` and `hooks sdk` put files by default: `hooks/` beside the config file, or
 * `./.the-loop/hooks/` when there is no config file yet (where `the-loop init` will write it).
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { LoadedConfig } from "../../config/mod.ts";

/** The directory the config file is in, or where `the-loop init` would write one. */
export function configDirOf(loaded: LoadedConfig, cwd: string): string {
  return loaded.path ? dirname(loaded.path) : join(cwd, ".the-loop");
}

/** The default hooks directory: `hooks/` in {@linkcode configDirOf}. */
export function defaultHooksDir(loaded: LoadedConfig, cwd: string): string {
  return join(configDirOf(loaded, cwd), "hooks");
}
