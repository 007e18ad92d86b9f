/**
 * `the-loop config show [--format yaml|json]`: the resolved config, defaults filled, and the
 * file it came from (or, when the lookup found none, where it looked).
 *
 * @module
 */
import type { Command } from "commander";
import { loadCliConfig } from "../_config.ts";
import type { CliContext } from "../context.ts";
import { formatOption, toJson } from "../_output.ts";

/** Registers `config show`. */
export function register(config: Command, ctx: CliContext): void {
  const cmd = config.command("show")
    .description("print the resolved config (every default filled) and the file it came from");
  formatOption(cmd, ["yaml", "json"], "yaml");
  cmd.action(async (opts: { format: "yaml" | "json" }) => {
    const loaded = await loadCliConfig(ctx);
    const lookedUp = loaded.source === "flag" || loaded.source === "env"
      ? {}
      : { searched: loaded.searched };
    if (opts.format === "json") {
      ctx.write(toJson({
        path: loaded.path,
        source: loaded.source,
        ...lookedUp,
        config: loaded.config,
      }));
      return;
    }
    const { stringify } = await import("yaml");
    ctx.write(`# from: ${loaded.origin}\n` + stringify(loaded.config, { lineWidth: 0 }));
  });
}
