/**
 * `the-loop gh-webhook start`: runs the webhook receiver in the foreground until SIGINT/SIGTERM
 * (or `gh-webhook stop`). One receiver per pidfile (an OS lock; a second one exits 1 naming the
 * first). Prints one ready line on stdout once it listens:
 *
 *     gh-webhook: listening on http://127.0.0.1:8787/gh-webhook (pid 4242)
 *
 * then, with `ui.enabled`, the status page's URL (`commands/_ui.ts`; a page that cannot start,
 * its port in use, is said on stderr and the receiver runs on without it).
 *
 * On a stop signal it refuses new connections, gives requests and queued routing up to
 * 5 s to finish, says what it handed back, removes the pidfile and exits 0.
 *
 * The receiver itself is `startReceiver` (`webhook/start.ts`): this file parses the flags into
 * its options, prints its ready line, maps SIGINT/SIGTERM to its `stop()` and its end to the exit
 * code.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { UsageError } from "../../errors.ts";
import { loadCliConfig } from "../_config.ts";
import { pathFlag } from "../_daemon.ts";
import { type CliContext, println } from "../context.ts";
import { startDaemonUi } from "../_ui.ts";

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
    .action((flags: StartFlags) => run(flags, ctx));
}

/** Runs `gh-webhook start` (the receiver, the router and the dispatcher are imported only now). */
async function run(flags: StartFlags, ctx: CliContext): Promise<void> {
  const interrupted = ctx.interrupted(); // listening for the signals before anything is held
  const loaded = await loadCliConfig(ctx);
  const hook = loaded.config.webhooks.ghWebhook;
  const port = flags.port === undefined ? hook.port : Number(flags.port);
  if (!/^\d+$/.test(String(flags.port ?? port)) || port > 65535) {
    throw new UsageError(`--port: must be an integer from 0 to 65535 (got "${flags.port}")`);
  }
  const path = flags.path ?? hook.path;
  if (!path.startsWith("/")) throw new UsageError(`--path: must start with / (got "${path}")`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.secretEnv ?? hook.secretEnv)) {
    throw new UsageError(
      `--secret-env: must be the NAME of an environment variable, e.g. THE_LOOP_GH_WEBHOOK_SECRET`,
    );
  }
  const { startReceiver } = await import("../../webhook/mod.ts");
  const receiver = startReceiver({
    loaded,
    env: ctx.env,
    cwd: ctx.cwd,
    warn: (line) => ctx.warn(line + "\n"),
    host: flags.host,
    port,
    path,
    pidfile: pathFlag(flags.pidfile, hook.pidfile, ctx.cwd),
    secretEnv: flags.secretEnv,
    route: flags.route,
  });
  interrupted.then(() => receiver.stop());
  const ready = await receiver.ready;
  println(ctx, `gh-webhook: listening on ${ready.url} (pid ${ready.pid})`);
  const closeUi = await startDaemonUi(ctx, loaded);
  const stopped = await receiver.stopped.finally(closeUi);
  if (stopped.reason === "died") {
    throw new Error(
      `the receiver's HTTP thread died (${stopped.died}); it stopped — start it again`,
    );
  }
  println(ctx, "gh-webhook: stopped");
}
