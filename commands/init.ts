import type { Command } from "commander";
import type { CliContext } from "./_context.ts";
export function register(program: Command, _ctx: CliContext): void {
  program.command("init").description("write a commented starting config (TODO)");
}
