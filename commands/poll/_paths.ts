/**
 * The files a poll command works on: the config's, with `--state-file`/`--pidfile` winning
 * (relative flags resolve against the working directory).
 *
 * @module
 */
import type { CliConfig } from "../../config/mod.ts";
import { pathFlag } from "../_daemon.ts";

/** The pidfile a poll command uses. */
export function pidfileOf(config: CliConfig, flag: string | undefined, cwd: string): string {
  return pathFlag(flag, config.polling.pidfile, cwd);
}
