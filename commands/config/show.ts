/**
 * `the-loop config show [--format yaml|json]`: the resolved config, defaults filled, and the
 * file it came from (or, when the lookup found none, where it looked). `--format json` prints
 * the envelope (`commands/_envelope.ts`, `schema/cli/config-show.json`) with the resolved config
 * as `resolved`, in every outcome.
 *
 * @module
 */
import type { Command } from "commander";
import { loadCliConfig } from "../_config.ts";
import type { CliContext } from "../context.ts";
import { formatOption } from "../_output.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";

/** Registers `config show`. */
export function register(config: Command, ctx: CliContext): void {
  const cmd = config.command("show")
    .description("print the resolved config (every default filled) and the file it came from");
  formatOption(cmd, ["yaml", "json"], "yaml");
  cmd.action((opts: { format: "yaml" | "json" }) =>
    jsonOnFailure(ctx, { json: opts.format === "json", command: "config show" }, async (ctx) => {
      const loaded = await loadCliConfig(ctx);
      if (opts.format === "json") {
        const lookedUp = loaded.source === "flag" || loaded.source === "env"
          ? {}
          : { searched: loaded.searched };
        printEnvelope(ctx, "config show", { ok: true, config: configRef(loaded) }, {
          path: loaded.path,
          source: loaded.source,
          ...lookedUp,
          resolved: loaded.config,
        });
        return;
      }
      const { stringify } = await import("yaml");
      ctx.write(`# from: ${loaded.origin}\n` + stringify(loaded.config, { lineWidth: 0 }));
    })
  );
}
