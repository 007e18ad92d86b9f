/**
 * `the-loop gh-webhook status [--pidfile F] [--format table|json]`: whether a receiver runs (the
 * pidfile's lock is the only proof) and, from `<state.root>/gh-webhook-status.json`, its URL, when
 * it started, its last error (kind, message, when), its last long rate-limit wait and why it is
 * degraded. Exit 0 whether or not one runs.
 *
 * @module
 */
import type { Command } from "commander";
import { loadCliConfig } from "../_config.ts";
import { lockRows, pathFlag, troubleRows } from "../_daemon.ts";
import type { CliContext } from "../context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { formatOption, table } from "../_output.ts";

interface StatusFlags {
  pidfile?: string;
  format: "table" | "json";
}

/** Adds `status` to the `gh-webhook` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("status")
    .description("say whether a receiver runs, its last error and why it is degraded")
    .option("--pidfile <path>", "the receiver's pidfile (default: webhooks.ghWebhook.pidfile)");
  formatOption(cmd, ["table", "json"], "table");
  cmd.action((flags: StatusFlags) =>
    jsonOnFailure(
      ctx,
      { json: flags.format === "json", command: "gh-webhook status" },
      async (ctx) => {
        const loaded = await loadCliConfig(ctx);
        const { config } = loaded;
        const { lockHolder } = await import("../../daemon/mod.ts");
        const { readWebhookStatus, webhookStatusPath } = await import("../../webhook/mod.ts");
        const pidfile = pathFlag(flags.pidfile, config.webhooks.ghWebhook.pidfile, ctx.cwd);
        const holder = await lockHolder(pidfile);
        const status = await readWebhookStatus(config.state.root);
        const running = holder.live;
        const statusFile = webhookStatusPath(config.state.root);
        if (flags.format === "json") {
          printEnvelope(ctx, "gh-webhook status", { ok: true, config: configRef(loaded) }, {
            running,
            pid: running ? holder.pid : null,
            pidfile,
            statusFile,
            status: status ?? null,
          });
          return;
        }
        const rows = lockRows(holder, pidfile);
        if (status) {
          rows.push(["url", status.url], ["started", status.startedAt], ...troubleRows(status));
        } else rows.push(["status", `none recorded (${statusFile})`]);
        ctx.write(table(["", ""], rows).split("\n").slice(1).join("\n"));
      },
    )
  );
}
