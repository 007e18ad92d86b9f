/**
 * `the-loop config validate [--format text|json]`: checks the config that applies — the schema,
 * then the `hooks:` declaration (which keys suit which kind of hook, names, points, URLs, …),
 * without importing, contacting or running any hook. Prints `ok: PATH` (without a file: `ok: no
 * config file found in …; defaults apply`, naming where it looked), or exits 1 with every
 * problem of both checks on stderr, one `file:line:col: key: message` each.
 *
 * @module
 */
import type { Command } from "commander";
import type { LoadedConfig } from "../../config/mod.ts";
import { byPosition, messageOf, type Problem, ProblemsError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { formatOption, toJson } from "../_output.ts";
import { hooksProblems } from "../_declaration.ts";

/** Registers `config validate`. */
export function register(config: Command, ctx: CliContext): void {
  const cmd = config.command("validate")
    .description("check the CLI config and list every problem in it");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action(async (opts: { format: "text" | "json" }) => {
    let loaded: LoadedConfig | undefined;
    let problems: Problem[] = [];
    try {
      loaded = await loadCliConfig(ctx);
    } catch (error) {
      if (!(error instanceof ProblemsError)) {
        if (opts.format === "json") {
          ctx.write(
            toJson({ ok: false, path: null, problems: [{ message: messageOf(error) }] }),
          );
        }
        throw error; // main.ts prints it on stderr and exits 1
      }
      problems = error.problems;
    }
    problems = [...problems, ...await hooksProblems(ctx, loaded, problems)].sort(byPosition);
    if (problems.length > 0) {
      if (opts.format === "json") {
        ctx.write(toJson({ ok: false, path: problems[0]?.file ?? null, problems }));
      }
      throw new ProblemsError(problems); // main.ts prints each problem on stderr and exits 1
    }
    const { path, source, searched, origin } = loaded!;
    if (opts.format === "json") {
      const lookedUp = source === "flag" || source === "env" ? {} : { searched };
      ctx.write(toJson({ ok: true, path, source, ...lookedUp, problems: [] }));
    } else println(ctx, `ok: ${path ?? origin}`);
  });
}
