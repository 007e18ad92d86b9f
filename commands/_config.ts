/**
 * Loads the CLI config the way every command does: `--config` > `$THE_LOOP_CLI_CONFIG` >
 * `./.the-loop/cli-config.yaml` > `~/.the-loop/cli-config.yaml`.
 *
 * @module
 */
import { loadConfig, type LoadedConfig } from "../config/mod.ts";
import type { CliContext } from "./_context.ts";

/** Loads the config for a command run with `ctx`. */
export function loadCliConfig(ctx: CliContext): Promise<LoadedConfig> {
  return loadConfig({ flag: ctx.configFlag(), env: ctx.env, cwd: ctx.cwd });
}
