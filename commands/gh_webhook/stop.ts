/**
 * `the-loop gh-webhook stop`: signals the receiver holding the pidfile's lock (SIGTERM) and waits
 * until it has let go. A stale pidfile is removed and nobody is signalled; no pidfile, a stale
 * one, or a receiver outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { registerStop } from "../_daemon.ts";

/** Adds `stop` to the `gh-webhook` group. */
export function register(group: Command, ctx: CliContext): void {
  registerStop(group, ctx, {
    what: "gh-webhook",
    prefix: "the-loop",
    pidfileKey: "webhooks.ghWebhook.pidfile",
    pidfileOf: (config) => config.webhooks.ghWebhook.pidfile,
  });
}
