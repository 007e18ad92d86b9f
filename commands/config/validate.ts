/**
 * `the-loop config validate [--format text|json]`: checks the config that applies — the schema,
 * then the `hooks:` declaration (which keys suit which kind of hook, names, points, URLs, …) and
 * the `loops:` (read strictly, with `routing.loop`; `commands/_loops.ts`),
 * without importing, contacting or running any hook. Prints `ok: PATH` (without a file: `ok: no
 * config file found in …; defaults apply`, naming where it looked), or exits 1 with every
 * problem of every check on stderr, one `file:line:col: key: message` each. `--format json`
 * prints the envelope (`commands/_envelope.ts`, `schema/cli/config-validate.json`) in every
 * outcome. Warnings (a bot login in `routing.authorizedUsers`, which authorizes no bot: only
 * `routing.authorizedBots` does) go to stderr as `file:line:col: key: warning: message` and into
 * the envelope's `warnings`; they leave the exit code alone.
 *
 * @module
 */
import type { Command } from "commander";
import type { LoadedConfig } from "../../config/mod.ts";
import { byPosition, formatProblem, type Problem, ProblemsError } from "../../errors.ts";
import { botInUsersWarning, isBotLogin } from "../../ingress/mod.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { formatOption } from "../_output.ts";
import { hooksProblems } from "../_declaration.ts";
import { loopsProblems } from "../_loops.ts";
import { configRef, configRefOf, jsonOnFailure, printEnvelope } from "../_envelope.ts";

const COMMAND = "config validate";

/** The key path of `routing.authorizedUsers`. */
const USERS = ["webhooks", "ghWebhook", "routing", "authorizedUsers"];

/** What the config does that is allowed but not what it seems: each located. */
export function configWarnings(loaded: LoadedConfig): Problem[] {
  const users = loaded.config.webhooks.ghWebhook.routing.authorizedUsers;
  return users.flatMap((login, i): Problem[] => {
    if (!isBotLogin(login)) return [];
    const at = loaded.locate([...USERS, i]);
    return [{
      ...(loaded.path ? { file: loaded.path } : {}),
      ...(at ? { line: at.line, col: at.col } : {}),
      path: `webhooks.ghWebhook.routing.authorizedUsers[${i}]`,
      message: botInUsersWarning(login),
    }];
  });
}

/** Prints each warning on stderr, as a problem with `warning:` before its message. */
function printWarnings(ctx: CliContext, warnings: readonly Problem[]): void {
  for (const w of warnings) {
    ctx.warn(`${formatProblem({ ...w, message: `warning: ${w.message}` })}\n`);
  }
}

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
  const warnings = loaded ? configWarnings(loaded) : [];
  printWarnings(ctx, warnings);
  if (problems.length > 0) {
    if (opts.format === "json") {
      const config = loaded ? configRef(loaded) : await configRefOf(ctx);
      printEnvelope(ctx, COMMAND, { ok: false, config, problems }, {
        path: problems[0]?.file ?? null,
        warnings,
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
      warnings,
    });
  } else println(ctx, `ok: ${path ?? origin}`);
}
