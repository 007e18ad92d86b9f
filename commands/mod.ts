/**
 * The one place commands are registered. Each command lives in its own file (or a folder per
 * group) and exports `register(program, ctx)`; this module builds the program from the list.
 *
 * @module
 */
import { Command, Help, type HelpConfiguration, type Option } from "commander";
import type { CliContext } from "./context.ts";
import { VERSION } from "../version.ts";
import { colour } from "../terminal.ts";
import * as init from "./init.ts";
import * as demo from "./demo.ts";
import * as config from "./config/mod.ts";
import * as events from "./events.ts";
import * as hooks from "./hooks/mod.ts";
import * as loops from "./loops/mod.ts";
import * as ghWebhook from "./gh_webhook/mod.ts";
import * as sessions from "./sessions/mod.ts";
import * as completions from "./completions.ts";
import * as poll from "./poll/mod.ts";
import * as advance from "./advance.ts";
import * as ask from "./ask.ts";
import * as reply from "./reply.ts";
import * as verdict from "./verdict.ts";
import * as ui from "./ui.ts";
import * as notify from "./notify/mod.ts";
import * as critic from "./critic/mod.ts";
import * as scenarios from "./scenarios.ts";

/** A command module: adds its command (and subcommands) to the program. */
export interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}

/** Every top-level command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandModule[] = [
  init,
  demo,
  config,
  poll,
  ghWebhook,
  sessions,
  advance,
  ask,
  reply,
  verdict,
  events,
  hooks,
  loops,
  notify,
  critic,
  scenarios,
  ui,
  completions,
];

/**
 * How every command's `--help` reads (subcommands inherit it): the global flags are listed too,
 * and a command run by a default subcommand (`hooks` runs `hooks list`) lists that one's flags,
 * so `--help` names every flag the command accepts.
 */
const HELP: HelpConfiguration = {
  showGlobalOptions: true,
  visibleOptions(cmd: Command): Option[] {
    const own = Help.prototype.visibleOptions.call(this, cmd);
    // commander keeps the default subcommand's name here and offers no getter for it
    const name = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
    const fallback = name ? cmd.commands.find((c) => c.name() === name) : undefined;
    if (!fallback) return own;
    const longs = new Set(own.map((o) => o.long));
    const extra = fallback.options.filter((o) => !o.hidden && !longs.has(o.long));
    return [...own, ...extra];
  },
};

/** Builds the full program. Errors are thrown (never `process.exit`), for `main.ts` to map. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command("the-loop")
    .description(
      "Watch GitHub issues and pull requests and drive coding-agent sessions to deliver them.",
    )
    .version(VERSION, "-V, --version", "print the version")
    .option("-c, --config <path>", "CLI config file (overrides $THE_LOOP_CLI_CONFIG and lookup)")
    .option("--no-color", "no colour in the output (also: $NO_COLOR set, or not a terminal)")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.write(s),
      writeErr: (s) => ctx.warn(s),
      outputError: () => {}, // main.ts prints errors as one line
    });
  program.addHelpCommand(false);
  program.configureHelp(HELP);
  const withFlags: CliContext = {
    ...ctx,
    configFlag: () => program.opts().config ?? ctx.configFlag(),
    colour: (stream) =>
      program.opts().color === false ? colour(false) : (ctx.colour?.(stream) ?? colour(false)),
  };
  for (const mod of COMMANDS) mod.register(program, withFlags);
  return program;
}
