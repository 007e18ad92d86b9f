import type { Command } from "commander";
import type { CliContext } from "./_context.ts";
export function register(program: Command, _ctx: CliContext): void {
  program.command("events").description("query the event log (TODO)");
}
