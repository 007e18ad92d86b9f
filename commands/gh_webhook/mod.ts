/**
 * `the-loop gh-webhook`: the GitHub webhook receiver — `start` runs it in the foreground,
 * `stop` signals the running one and waits for it to go, `status` says whether one runs, its last
 * error and why it is degraded. See `docs/gh-webhook.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import * as start from "./start.ts";
import * as stop from "./stop.ts";
import * as status from "./status.ts";

/** Registers `gh-webhook` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const group = program.command("gh-webhook")
    .description("receive GitHub webhook deliveries and route them to sessions");
  group.helpOption("-h, --help", "show help").helpCommand(false);
  for (const sub of [start, stop, status]) sub.register(group, ctx);
}
