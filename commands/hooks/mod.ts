/**
 * `the-loop hooks`: inspect and check the lifecycle hooks — list the declaration (`list`, the
 * default subcommand), `points` (the catalog), `validate` (the CI preflight), `test` (run one hook
 * against a sample context), `init` (write a starter hook), `sdk` (write the SDK out) and `reset`
 * (re-arm a hook's open circuit), `suspended` and `resume` (the operations a failing
 * `onError: suspend` hook parked).
 *
 * Start-up stays fast: nothing here imports the bundler or the executors; `validate` and `test`
 * import them when they run.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { formatOption } from "../_output.ts";
import { UsageError } from "../../errors.ts";
import { didYouMean } from "../../config/mod.ts";
import * as init from "./init.ts";
import { type ListFlags, listHooks } from "./list.ts";
import * as points from "./points.ts";
import * as resetCircuit from "./reset.ts";
import * as sdk from "./sdk.ts";
import * as suspended from "./suspended.ts";
import * as test from "./test_command.ts";
import * as validate from "./validate.ts";

/** Registers `hooks` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const hooks = program.command("hooks")
    .description("list, check, test and scaffold the lifecycle hooks declared in hooks:");
  hooks.helpOption("-h, --help", "show help").helpCommand(false);
  // `hooks [--format]` runs `list`: as the default subcommand (not an action of `hooks` with
  // its own --format) so that the subcommands' --format is theirs wherever it is written
  const list = hooks.command("list", { isDefault: true })
    .description("list the declared hooks (the default): nothing is imported, contacted or run");
  formatOption(list, ["text", "json"], "text");
  // a mistyped subcommand lands here as an extra argument: say so rather than "too many arguments"
  list.allowExcessArguments(true).action((flags: ListFlags, cmd: Command) => {
    const typo = cmd.args[0];
    if (typo === undefined) return listHooks(ctx, flags);
    const guess = didYouMean(typo, hooks.commands.map((c) => c.name()));
    throw new UsageError(
      `unknown command 'hooks ${typo}'${guess ? ` (did you mean ${guess}?)` : ""}; ` +
        `see 'the-loop hooks --help'`,
    );
  });
  for (const sub of [points, validate, test, init, sdk, resetCircuit, suspended]) {
    sub.register(hooks, ctx);
  }
}
