/**
 * `the-loop config show [--format yaml|json]`: the resolved config, defaults filled, and the
 * file it came from.
 *
 * @module
 */
import type { Command } from "commander";
import { loadCliConfig } from "../_config.ts";
import type { CliContext } from "../_context.ts";
import { formatOption, toJson } from "../_output.ts";

/** Registers `config show`. */
export function register(config: Command, ctx: CliContext): void {
  const cmd = config.command("show")
    .description("print the resolved config (every default filled) and the file it came from");
  formatOption(cmd, ["yaml", "json"], "yaml");
  cmd.action(async (opts: { format: "yaml" | "json" }) => {
    const loaded = await loadCliConfig(ctx);
    if (opts.format === "json") {
      ctx.write(toJson({ path: loaded.path, source: loaded.source, config: loaded.config }));
      return;
    }
    const [{ stringify }, { SOURCE_LABELS }] = await Promise.all([
      import("yaml"),
      import("../../config/mod.ts"),
    ]);
    const from = `# from: ${loaded.path ?? "(no config file)"} (${SOURCE_LABELS[loaded.source]})`;
    ctx.write(from + "\n" + stringify(loaded.config, { lineWidth: 0 }));
  });
}
