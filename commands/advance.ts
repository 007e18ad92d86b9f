/**
 * `the-loop advance [REF] --outcome O [--node N]`: the agent's claim that its loop node is done,
 * with outcome O, sent to the running daemon (`_verb.ts`): run from inside the item's session,
 * REF defaults to `$THE_LOOP_WORK_ITEM` and the session's capability is `$THE_LOOP_SESSION`. An
 * outcome the node lacks, a human node (a gate) or `--node` naming a node ahead is refused
 * (exit 1); a claim for a node already left is a no-op (exit 0). See `docs/agent-commands.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "./context.ts";
import { formatOption } from "./_output.ts";
import { runVerb } from "./_verb.ts";

interface Flags {
  outcome: string;
  node?: string;
  format: "text" | "json";
}

/** Registers `advance`. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command("advance")
    .description("claim the current loop node done with an outcome (from inside a session)")
    .argument("[ref]", "the work item (default: $THE_LOOP_WORK_ITEM)")
    .requiredOption("--outcome <outcome>", "the node's outcome, e.g. done")
    .option("--node <node>", "the node the claim is for (refused when it is not the current one)");
  formatOption(cmd, ["text", "json"], "text")
    .action((ref: string | undefined, flags: Flags) =>
      runVerb({
        verb: "advance",
        ref,
        fields: { outcome: flags.outcome, node: flags.node },
        needsCapability: true,
        format: flags.format,
      }, ctx)
    );
}
