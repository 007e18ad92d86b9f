/**
 * `the-loop config validate [--format text|json]`: checks the config that applies. Prints
 * `ok: PATH`, or exits 1 with every problem on stderr, one `file:line:col: key: message` each.
 *
 * @module
 */
import type { Command } from "commander";
import { ProblemsError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../_context.ts";
import { formatOption, toJson } from "../_output.ts";

/** Registers `config validate`. */
export function register(config: Command, ctx: CliContext): void {
  const cmd = config.command("validate")
    .description("check the CLI config and list every problem in it");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action(async (opts: { format: "text" | "json" }) => {
    try {
      const loaded = await loadCliConfig(ctx);
      if (opts.format === "json") {
        ctx.write(toJson({ ok: true, path: loaded.path, source: loaded.source, problems: [] }));
      } else println(ctx, `ok: ${loaded.path ?? "no config file found; defaults apply"}`);
    } catch (error) {
      if (opts.format === "json") {
        const problems = error instanceof ProblemsError
          ? error.problems
          : [{ message: (error as Error).message }];
        ctx.write(toJson({ ok: false, path: problems[0]?.file ?? null, problems }));
      }
      throw error; // main.ts prints each problem on stderr and exits 1
    }
  });
}
