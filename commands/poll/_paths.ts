/**
 * The files a poll command works on: the config's, with `--state-file`/`--pidfile` winning
 * (relative flags resolve against the working directory).
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import type { CliConfig } from "../../config/mod.ts";

/** A flag's path made absolute, else the config's. */
export function pathFlag(flag: string | undefined, fallback: string, cwd: string): string {
  if (!flag) return fallback;
  return isAbsolute(flag) ? flag : join(cwd, flag);
}

/** The pidfile a poll command uses. */
export function pidfileOf(config: CliConfig, flag: string | undefined, cwd: string): string {
  return pathFlag(flag, config.polling.pidfile, cwd);
}
