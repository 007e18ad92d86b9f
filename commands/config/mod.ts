/**
 * `the-loop config`: inspect the CLI config — `show` prints it resolved, `validate` checks it.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import * as show from "./show.ts";
import * as validate from "./validate.ts";

/** Registers `config` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const config = program.command("config")
    .description("show or validate the resolved CLI config");
  config.helpOption("-h, --help", "show help").helpCommand(false);
  for (const sub of [show, validate]) sub.register(config, ctx);
}
