/**
 * The one place commands are registered. Each command lives in its own file (or a folder per
 * group) and exports `register(program, ctx)`; this module builds the program from the list.
 *
 * @module
 */
import { Command } from "commander";
import type { CliContext } from "./context.ts";
import { VERSION } from "../version.ts";
import * as init from "./init.ts";
import * as config from "./config/mod.ts";
import * as events from "./events.ts";
import * as hooks from "./hooks/mod.ts";

/** A command module: adds its command (and subcommands) to the program. */
export interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}

/** Every top-level command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandModule[] = [init, config, events, hooks];

/** Builds the full program. Errors are thrown (never `process.exit`), for `main.ts` to map. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command("the-loop")
    .description(
      "Watch GitHub issues and pull requests and drive coding-agent sessions to deliver them.",
    )
    .version(VERSION, "-V, --version", "print the version")
    .option("-c, --config <path>", "CLI config file (overrides $THE_LOOP_CLI_CONFIG and lookup)")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.write(s),
      writeErr: (s) => ctx.warn(s),
      outputError: () => {}, // main.ts prints errors as one line
    });
  program.addHelpCommand(false);
  const withFlags: CliContext = {
    ...ctx,
    configFlag: () => program.opts().config ?? ctx.configFlag(),
  };
  for (const mod of COMMANDS) mod.register(program, withFlags);
  return program;
}
