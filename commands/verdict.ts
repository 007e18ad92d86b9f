/**
 * `the-loop verdict REF --outcome O [--actor LOGIN]`: a person's verdict at the gate the work
 * item waits at (`approve`, `request-changes`, or the gate's own outcomes), sent to the running
 * daemon (`_verb.ts`) instead of written as a keyword comment; the daemon takes it the way it
 * takes the keyword: the `input_received` hooks may refuse it (exit 1 with the reason), then the
 * item moves on. No gate waiting, or an outcome the gate lacks, is exit 1 and moves nothing. No
 * capability is needed, and one is refused (a verdict is a person's, never an agent's). The
 * actor is `--actor`, else `$THE_LOOP_ACTOR`, else `$USER`. The status page's approve and
 * request-changes buttons run this. See `docs/agent-commands.md`.
 *
 * @module
 */
import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import { formatOption } from "./_output.ts";
import { runVerb } from "./_verb.ts";

interface Flags {
  outcome: string;
  actor?: string;
  format: "text" | "json";
}

/** Registers `verdict`. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command("verdict")
    .description("decide the gate a work item waits at (approve, request-changes, …), as a person")
    .argument("<ref>", "the work item: github:OWNER/REPO#N or github:HOST/OWNER/REPO#N")
    .requiredOption("--outcome <outcome>", "the gate's outcome, e.g. approve or request-changes")
    .option("--actor <login>", "who decides (default: $THE_LOOP_ACTOR, else $USER)");
  formatOption(cmd, ["text", "json"], "text")
    .action((ref: string, flags: Flags) => {
      const actor = [flags.actor, ctx.env("THE_LOOP_ACTOR"), ctx.env("USER")]
        .map((a) => a?.trim()).find((a) => a);
      if (!actor) throw new UsageError("who decides? give --actor LOGIN (or set $THE_LOOP_ACTOR)");
      return runVerb({
        verb: "verdict",
        ref,
        fields: { outcome: flags.outcome, actor },
        needsCapability: false,
        format: flags.format,
      }, ctx);
    });
}
