/**
 * `the-loop ask [REF] --question TEXT [--summary S]`: the agent asks a person, through the
 * running daemon (`_verb.ts`): one marked comment carries the question and the session is
 * marked awaiting input until the answer comes (the next authorized comment, or
 * `the-loop reply`). Run from inside the item's session: REF defaults to `$THE_LOOP_WORK_ITEM`,
 * the capability is `$THE_LOOP_SESSION`. See `docs/agent-commands.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "./context.ts";
import { formatOption } from "./_output.ts";
import { runVerb } from "./_verb.ts";

interface Flags {
  question: string;
  summary?: string;
  format: "text" | "json";
}

/** Registers `ask`. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command("ask")
    .description("ask a person a question on the work item and wait for the answer")
    .argument("[ref]", "the work item (default: $THE_LOOP_WORK_ITEM)")
    .requiredOption("--question <text>", "the question (not empty)")
    .option("--summary <text>", "one line of context for the person");
  formatOption(cmd, ["text", "json"], "text")
    .action((ref: string | undefined, flags: Flags) =>
      runVerb({
        verb: "ask",
        ref,
        fields: { question: flags.question, summary: flags.summary },
        needsCapability: true,
        format: flags.format,
      }, ctx)
    );
}
