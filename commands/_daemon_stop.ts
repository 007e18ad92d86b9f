/**
 * `poll stop` and `gh-webhook stop`, one command: signal the daemon holding the pidfile's lock
 * (SIGTERM) and wait until it has let go (case 30). A stale pidfile is removed and nobody is
 * signalled; no pidfile, a stale one, or a daemon outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, join } from "node:path";
import type { CliConfig } from "../config/mod.ts";
import { UsageError } from "../errors.ts";
import { loadCliConfig } from "./_config.ts";
import { type CliContext, println } from "./context.ts";

interface StopFlags {
  pidfile?: string;
  timeout: string;
}

/** What differs between the two daemons' `stop`. */
export interface DaemonStopOptions {
  /** How messages name the daemon: `the poller`, `gh-webhook`. */
  what: string;
  /** The prefix of the printed line: `poll`, `the-loop`. */
  prefix: string;
  /** The config key the pidfile defaults to, for `--help`. */
  pidfileKey: string;
  /** The pidfile from the config. */
  pidfileOf(config: CliConfig): string;
}

/** Adds `stop` to a daemon's command group. */
export function registerStop(group: Command, ctx: CliContext, o: DaemonStopOptions): void {
  group.command("stop")
    .description(
      `stop the running ${o.what.replace(/^the /, "")} (SIGTERM, then wait for it to exit)`,
    )
    .option("--pidfile <path>", `its pidfile (default: ${o.pidfileKey})`)
    .option("--timeout <seconds>", "how long to wait for it to exit", "30")
    .action(async (flags: StopFlags) => {
      const seconds = Number(flags.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        throw new UsageError(`--timeout: must be a number of seconds > 0 (got "${flags.timeout}")`);
      }
      const pidfile = flags.pidfile
        ? (isAbsolute(flags.pidfile) ? flags.pidfile : join(ctx.cwd, flags.pidfile))
        : o.pidfileOf((await loadCliConfig(ctx)).config);
      const { describeStop, stopDaemon } = await import("../daemon/mod.ts");
      const result = await stopDaemon(pidfile, { timeoutMs: seconds * 1000 });
      const message = describeStop(o.what, pidfile, result);
      if (result.outcome !== "stopped") throw new Error(message);
      println(ctx, `${o.prefix}: ${message}`);
    });
}
