/**
 * `the-loop notify`: the notification channels (`collaborators[].notifications.channels`) —
 * `test` sends each a test envelope and says what came back. See `docs/notifications.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import * as test from "./test.ts";

/** Registers `notify` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const notify = program.command("notify")
    .description("check the notification channels (collaborators[].notifications.channels)");
  notify.helpOption("-h, --help", "show help").helpCommand(false);
  test.register(notify, ctx);
}
