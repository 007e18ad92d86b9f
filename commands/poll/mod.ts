/**
 * `the-loop poll`: the poller — `start` runs it (in the foreground, `--once` for one cycle,
 * `--dry-run` to see what it would do), `stop` signals the running one and waits for it to go,
 * `status` says whether one runs and what its last cycle did. See `docs/poll.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import * as start from "./start.ts";
import * as stop from "./stop.ts";
import * as status from "./status.ts";

/** Registers `poll` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const group = program.command("poll")
    .description("poll GitHub for labelled issues and pull requests and route what is new");
  group.helpOption("-h, --help", "show help").helpCommand(false);
  for (const sub of [start, stop, status]) sub.register(group, ctx);
}
