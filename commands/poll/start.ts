/**
 * `the-loop poll start [--interval N] [--once] [--dry-run] [--state-file F] [--pidfile F]`: runs
 * the poller in the foreground until SIGINT/SIGTERM (or `poll stop`); `--once` runs one cycle and
 * exits 0. One poller per pidfile (an OS lock: a second one exits 1 naming the first; a pidfile
 * left by a killed process does not block). Prints one ready line on stdout:
 *
 *     poll: started (pid 4242, every 60s, 2 sources)
 *
 * A stop request finishes the item in flight, then the poller exits cleanly. `--dry-run` is
 * `_dry_run.ts`.
 *
 * @module
 */
import { type Command, Option } from "commander";
import type { CliContext } from "../context.ts";
import { formatOption } from "../_output.ts";
import { jsonOnFailure } from "../_envelope.ts";

/** The flags of `poll start`. */
export interface StartFlags {
  interval?: string;
  once?: boolean;
  dryRun?: boolean;
  stateFile?: string;
  pidfile?: string;
  format: "text" | "json";
}

/** Adds `start` to the `poll` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("start")
    .description("run the poller in the foreground until SIGINT/SIGTERM (or poll stop)")
    .option("--interval <seconds>", "seconds between cycles (default: polling.intervalSeconds)")
    .option("--once", "run one cycle, then exit")
    .addOption(
      new Option(
        "--dry-run",
        "run one cycle that reads GitHub but writes nothing; print what would be handed over",
      ),
    )
    .option("--state-file <path>", "the ledger (default: polling.stateFile)")
    .option("--pidfile <path>", "the pidfile to lock (default: polling.pidfile)");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((flags: StartFlags) =>
    jsonOnFailure(
      ctx,
      { json: flags.format === "json" && flags.dryRun === true, command: "poll start" },
      async (ctx) => (await import("../../poll/start.ts")).run(flags, ctx),
    )
  );
}
