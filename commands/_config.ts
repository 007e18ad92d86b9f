/**
 * Loads the CLI config the way every command does: `--config` > `$THE_LOOP_CLI_CONFIG` >
 * `.the-loop/cli-config.yaml` in the working folder or the nearest parent folder that has one >
 * `~/.the-loop/cli-config.yaml`. `LoadedConfig.origin` says in one line where it came from (or
 * where the lookup looked), for "defaults apply" messages.
 *
 * @module
 */
import type { LoadedConfig } from "../config/mod.ts";
import type { CliContext } from "./context.ts";

/**
 * Loads the config for a command run with `ctx`. The loader (and with it `yaml` and `ajv`) is
 * imported on first use, so commands that need no config (`--version`, `--help`) start faster.
 */
export async function loadCliConfig(ctx: CliContext): Promise<LoadedConfig> {
  const { loadConfig } = await import("../config/mod.ts");
  return loadConfig({ flag: ctx.configFlag(), env: ctx.env, cwd: ctx.cwd });
}
