/**
 * `the-loop loops`: the loops a work item can walk (`list`, the default subcommand: the
 * built-ins and the config's `loops:`, read strictly) and where an item stands in its loop
 * (`show REF`, read from `<state.root>/loops/`; no daemon needed). See `docs/loops.md`.
 *
 * @module
 */
import type { Command } from "commander";
import { didYouMean } from "../../config/mod.ts";
import { UsageError } from "../../errors.ts";
import type { CliContext } from "../context.ts";
import { formatOption } from "../_output.ts";
import { type ListFlags, listLoops } from "./list.ts";
import * as show from "./show.ts";

/** Registers `loops` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const loops = program.command("loops")
    .description("list the loops (built-ins and loops:) and show where a work item stands in one");
  loops.helpOption("-h, --help", "show help").helpCommand(false);
  // `loops [--format]` runs `list`, as `hooks` runs `hooks list`
  const list = loops.command("list", { isDefault: true })
    .description("list every loop, read strictly, with its nodes (the default)");
  formatOption(list, ["text", "json"], "text");
  list.allowExcessArguments(true).action((flags: ListFlags, cmd: Command) => {
    const typo = cmd.args[0];
    if (typo === undefined) return listLoops(ctx, flags);
    const guess = didYouMean(typo, loops.commands.map((c) => c.name()));
    throw new UsageError(
      `unknown command 'loops ${typo}'${guess ? ` (did you mean ${guess}?)` : ""}; ` +
        `see 'the-loop loops --help'`,
    );
  });
  show.register(loops, ctx);
}
