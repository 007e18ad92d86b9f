/**
 * `the-loop critic`: the critics a repository declares in `.the-loop/harness-config.yaml`
 * (`reviews.critics[]`) — `list` them, `run` one round of one. Repo-scoped: `--root` names the
 * repository (default: the top of the git repository of the working directory, else the working
 * directory). See `docs/critic.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import * as list from "./list.ts";
import * as run from "./run.ts";

/** Registers `critic` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const group = program.command("critic")
    .description("the repository's critics (.the-loop/harness-config.yaml): list them, run one");
  group.helpOption("-h, --help", "show help").helpCommand(false);
  for (const sub of [list, run]) sub.register(group, ctx);
}
