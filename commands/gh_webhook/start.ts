/**
 * `the-loop gh-webhook start`: runs the webhook receiver in the foreground until SIGINT/SIGTERM
 * (or `gh-webhook stop`). One receiver per pidfile (an OS lock; a second one exits 1 naming the
 * first). Prints one ready line on stdout once it listens:
 *
 *     gh-webhook: listening on http://127.0.0.1:8787/gh-webhook (pid 4242)
 *
 * On a stop signal it refuses new connections, gives requests and queued routing up to
 * 5 s to finish, says what it handed back, removes the pidfile and exits 0.
 *
 * @module
 */
import { type Command, Option } from "commander";
import type { CliContext } from "../context.ts";

/** The flags of `gh-webhook start`. */
export interface StartFlags {
  host?: string;
  port?: string;
  path?: string;
  pidfile?: string;
  secretEnv?: string;
  route?: boolean;
}

/** Adds `start` to the `gh-webhook` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("start")
    .description("run the webhook receiver in the foreground until SIGINT/SIGTERM")
    .option("--host <host>", "interface to bind (default: webhooks.ghWebhook.host)")
    .option(
      "--port <port>",
      "port to listen on; 0 picks a free one (default: webhooks.ghWebhook.port)",
    )
    .option("--path <path>", "the delivery path (default: webhooks.ghWebhook.path)")
    .option("--pidfile <path>", "the pidfile to lock (default: webhooks.ghWebhook.pidfile)")
    .option(
      "--secret-env <name>",
      "NAME of the variable holding the webhook secret (default: webhooks.ghWebhook.secretEnv)",
    )
    .addOption(
      new Option(
        "--route",
        "route accepted deliveries (default: webhooks.ghWebhook.routing.enabled)",
      ),
    )
    .addOption(new Option("--no-route", "accept and log deliveries, route nothing"))
    .action(async (flags: StartFlags) => (await import("../../webhook/start.ts")).run(flags, ctx));
}
