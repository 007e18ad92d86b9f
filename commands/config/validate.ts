/**
 * `the-loop config validate [--format text|json]`: checks the config that applies — the schema,
 * then the `hooks:` declaration (which keys suit which kind of hook, names, points, URLs, …) and
 * the `loops:` (read strictly, with `routing.loop`; `commands/_loops.ts`),
 * without importing, contacting or running any hook. Prints `ok: PATH` (without a file: `ok: no
 * config file found in …; defaults apply`, naming where it looked), or exits 1 with every
 * problem of every check on stderr, one `file:line:col: key: message` each. `--format json`
 * prints the envelope (`commands/_envelope.ts`, `schema/cli/config-validate.json`) in every
 * outcome.
 *
 * @module
 */
import type { Command } from "commander";
import type { LoadedConfig } from "../../config/mod.ts";
import { byPosition, type Problem, ProblemsError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { formatOption } from "../_output.ts";
import { hooksProblems } from "../_declaration.ts";
import { loopsProblems } from "../_loops.ts";
import { configRef, configRefOf, jsonOnFailure, printEnvelope } from "../_envelope.ts";

const COMMAND = "config validate";

/** Registers `config validate`. */
export function register(config: Command, ctx: CliContext): void {
  const cmd = config.command("validate")
    .description("check the CLI config and list every problem in it");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((opts: { format: "text" | "json" }) =>
    jsonOnFailure(
      ctx,
      { json: opts.format === "json", command: COMMAND, fields: { path: null } },
      (ctx) => validate(ctx, opts),
    )
  );
}

async function validate(ctx: CliContext, opts: { format: "text" | "json" }): Promise<void> {
  let loaded: LoadedConfig | undefined;
  let problems: Problem[] = [];
  try {
    loaded = await loadCliConfig(ctx);
  } catch (error) {
    if (!(error instanceof ProblemsError)) throw error; // printed by jsonOnFailure
    problems = error.problems;
  }
  problems = [
    ...problems,
    ...await hooksProblems(ctx, loaded, problems),
    ...await loopsProblems(loaded, problems),
  ].sort(byPosition);
  if (problems.length > 0) {
    if (opts.format === "json") {
      const config = loaded ? configRef(loaded) : await configRefOf(ctx);
      printEnvelope(ctx, COMMAND, { ok: false, config, problems }, {
        path: problems[0]?.file ?? null,
      });
    }
    throw new ProblemsError(problems); // main.ts prints each problem on stderr and exits 1
  }
  const { path, source, searched, origin } = loaded!;
  if (opts.format === "json") {
    const lookedUp = source === "flag" || source === "env" ? {} : { searched };
    printEnvelope(ctx, COMMAND, { ok: true, config: configRef(loaded!), problems: [] }, {
      path,
      source,
      ...lookedUp,
    });
  } else println(ctx, `ok: ${path ?? origin}`);
}
