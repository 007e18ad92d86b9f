/**
 * `the-loop poll stop`: signals the poller holding the pidfile's lock (SIGTERM) and waits until it
 * has let go (`--timeout`, default 30 s). A stale pidfile is removed and nobody is signalled; no pidfile, a stale
 * one, or a poller outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { registerStop } from "../_daemon.ts";

/** Adds `stop` to the `poll` group. */
export function register(group: Command, ctx: CliContext): void {
  registerStop(group, ctx, {
    what: "the poller",
    prefix: "poll",
    pidfileKey: "polling.pidfile",
    pidfileOf: (config) => config.polling.pidfile,
  });
}
