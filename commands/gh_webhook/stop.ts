/**
 * `the-loop gh-webhook stop`: signals the receiver holding the pidfile's lock (SIGTERM) and waits
 * until it has let go. A stale pidfile is removed and nobody is signalled; no pidfile, a stale
 * one, or a receiver outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, join } from "node:path";
import { UsageError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";

interface StopFlags {
  pidfile?: string;
  timeout: string;
}

/** Adds `stop` to the `gh-webhook` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("stop")
    .description("stop the running receiver (SIGTERM, then wait for it to exit)")
    .option("--pidfile <path>", "the receiver's pidfile (default: webhooks.ghWebhook.pidfile)")
    .option("--timeout <seconds>", "how long to wait for it to exit", "30")
    .action(async (flags: StopFlags) => {
      const seconds = Number(flags.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        throw new UsageError(`--timeout: must be a number of seconds > 0 (got "${flags.timeout}")`);
      }
      const pidfile = flags.pidfile
        ? (isAbsolute(flags.pidfile) ? flags.pidfile : join(ctx.cwd, flags.pidfile))
        : (await loadCliConfig(ctx)).config.webhooks.ghWebhook.pidfile;
      const { describeStop, stopDaemon } = await import("../../daemon/mod.ts");
      const result = await stopDaemon(pidfile, { timeoutMs: seconds * 1000 });
      const message = describeStop("gh-webhook", pidfile, result);
      if (result.outcome !== "stopped") throw new Error(message);
      println(ctx, `the-loop: ${message}`);
    });
}
