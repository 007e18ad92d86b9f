/**
 * `the-loop poll start [--interval N] [--once] [--dry-run] [--state-file F] [--pidfile F]`: runs
 * the poller in the foreground until SIGINT/SIGTERM (or `poll stop`); `--once` runs one cycle and
 * exits 0. One poller per pidfile (an OS lock: a second one exits 1 naming the first; a pidfile
 * left by a killed process does not block). Prints one ready line on stdout:
 *
 *     poll: started (pid 4242, every 60s, 2 sources)
 *
 * then, with `ui.enabled` (and not `--once`), the status page's URL (`commands/_ui.ts`):
 *
 *     ui: the status page is at http://127.0.0.1:8788/
 *
 * A stop request finishes the item in flight, then the poller exits cleanly. The poller itself is
 * `startPoller` (`poll/start.ts`): this file parses the flags into its options, prints its ready
 * line, maps SIGINT/SIGTERM to its `stop()` and its end to the exit code. `--dry-run` is
 * `_dry_run.ts`.
 *
 * @module
 */
import { type Command, Option } from "commander";
import type { CliContext } from "../context.ts";
import { formatOption } from "../_output.ts";
import { jsonOnFailure } from "../_envelope.ts";
import { UsageError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { pathFlag } from "../_daemon.ts";
import { println } from "../context.ts";
import { startDaemonUi } from "../_ui.ts";

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
      (ctx) => run(flags, ctx),
    )
  );
}

function intervalOf(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const n = Number(flag);
  if (!/^\d+$/.test(flag.trim()) || n < 1) {
    throw new UsageError(`--interval: must be a whole number of seconds ≥ 1 (got "${flag}")`);
  }
  return n;
}

/** Runs `poll start` (the poller, the router and the dispatcher are imported only now). */
async function run(flags: StartFlags, ctx: CliContext): Promise<void> {
  const interrupted = ctx.interrupted(); // listening for the signals before anything is held
  const interval = intervalOf(flags.interval);
  if (flags.format === "json" && !flags.dryRun) {
    throw new UsageError("--format json goes with --dry-run (the daemon logs to the event log)");
  }
  const loaded = await loadCliConfig(ctx);
  const { config } = loaded;
  const stateFile = pathFlag(flags.stateFile, config.polling.stateFile, ctx.cwd);
  if (flags.dryRun) {
    const { resolveTokenFromConfig } = await import("../../github/mod.ts");
    const { token } = await resolveTokenFromConfig(config, ctx.env);
    const { dryRun } = await import("./_dry_run.ts");
    return dryRun({ ctx, loaded, token, stateFile, format: flags.format });
  }
  const { startPoller } = await import("../../poll/mod.ts");
  const poller = startPoller({
    loaded,
    env: ctx.env,
    cwd: ctx.cwd,
    warn: (line) => ctx.warn(line + "\n"),
    stateFile,
    pidfile: pathFlag(flags.pidfile, config.polling.pidfile, ctx.cwd),
    intervalSeconds: interval,
    once: flags.once ?? false,
  });
  interrupted.then(() => poller.stop());
  const ready = await poller.ready;
  const n = ready.sources;
  println(
    ctx,
    `poll: started (pid ${ready.pid}, every ${ready.intervalSeconds}s, ` +
      `${n} source${n === 1 ? "" : "s"})`,
  );
  // the status page, unless this is one cycle (`ui.enabled`; a page that cannot start is said)
  const closeUi = flags.once ? () => Promise.resolve() : await startDaemonUi(ctx, loaded);
  const { failed } = await poller.stopped.finally(closeUi);
  println(ctx, "poll: stopped");
  if (flags.once && failed.length > 0) {
    const kinds = failed.map((f) => `${f.kind} ×${f.count}`).join(", ");
    throw new Error(
      `poll --once: the cycle had errors (${kinds}): each kind is said above with what to do`,
    );
  }
}
