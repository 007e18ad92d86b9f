/**
 * `the-loop poll stop`: signals the poller holding the pidfile's lock (SIGTERM) and waits until it
 * has let go (case 30). A stale pidfile is removed and nobody is signalled; no pidfile, a stale
 * one, or a poller outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { UsageError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { pathFlag } from "./_paths.ts";

interface StopFlags {
  pidfile?: string;
  timeout: string;
}

/** Adds `stop` to the `poll` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("stop")
    .description("stop the running poller (SIGTERM, then wait for it to exit)")
    .option("--pidfile <path>", "the poller's pidfile (default: polling.pidfile)")
    .option("--timeout <seconds>", "how long to wait for it to exit", "30")
    .action(async (flags: StopFlags) => {
      const seconds = Number(flags.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        throw new UsageError(`--timeout: must be a number of seconds > 0 (got "${flags.timeout}")`);
      }
      const pidfile = flags.pidfile
        ? pathFlag(flags.pidfile, "", ctx.cwd)
        : (await loadCliConfig(ctx)).config.polling.pidfile;
      const { describeStop, stopDaemon } = await import("../../daemon/mod.ts");
      const result = await stopDaemon(pidfile, { timeoutMs: seconds * 1000 });
      const message = describeStop("the poller", pidfile, result);
      if (result.outcome !== "stopped") throw new Error(message);
      println(ctx, `poll: ${message}`);
    });
}
