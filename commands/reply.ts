/**
 * `the-loop reply REF --text TEXT [--actor LOGIN]`: an operator answers the question a session
 * asked (`the-loop ask`), from the terminal, through the running daemon (`_verb.ts`): the
 * `input_received` hooks may rewrite or refuse it (exit 1 with the reason); with no live session
 * it exits 1 and spawns nothing. No capability is needed. The actor is `--actor`, else
 * `$THE_LOOP_ACTOR`, else `$USER`. See `docs/agent-commands.md`.
 *
 * @module
 */
import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import { formatOption } from "./_output.ts";
import { runVerb } from "./_verb.ts";

interface Flags {
  text: string;
  actor?: string;
  format: "text" | "json";
}

/** Registers `reply`. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command("reply")
    .description("answer the question a session asked, as a person")
    .argument("<ref>", "the work item: github:OWNER/REPO#N or github:HOST/OWNER/REPO#N")
    .requiredOption("--text <text>", "the answer (not empty)")
    .option("--actor <login>", "who answers (default: $THE_LOOP_ACTOR, else $USER)");
  formatOption(cmd, ["text", "json"], "text")
    .action((ref: string, flags: Flags) => {
      const actor = [flags.actor, ctx.env("THE_LOOP_ACTOR"), ctx.env("USER")]
        .map((a) => a?.trim()).find((a) => a);
      if (!actor) throw new UsageError("who answers? give --actor LOGIN (or set $THE_LOOP_ACTOR)");
      return runVerb({
        verb: "reply",
        ref,
        fields: { text: flags.text, actor },
        needsCapability: false,
        format: flags.format,
      }, ctx);
    });
}
