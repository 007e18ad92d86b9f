/**
 * `the-loop gh-webhook status [--pidfile F] [--format table|json]`: whether a receiver runs (the
 * pidfile's lock is the only proof) and, from `<state.root>/gh-webhook-status.json`, its URL, when
 * it started, its last error (kind, message, when), its last long rate-limit wait and why it is
 * degraded. Exit 0 whether or not one runs.
 *
 * @module
 */
import type { Command } from "commander";
import { registerStatus, troubleRows } from "../_daemon.ts";
import type { CliContext } from "../context.ts";
import type { WebhookStatus } from "../../webhook/mod.ts";

/** Adds `status` to the `gh-webhook` group. */
export function register(group: Command, ctx: CliContext): void {
  registerStatus<WebhookStatus>(group, ctx, {
    command: "gh-webhook status",
    description: "say whether a receiver runs, its last error and why it is degraded",
    pidfileHelp: "the receiver's pidfile (default: webhooks.ghWebhook.pidfile)",
    pidfileOf: (config) => config.webhooks.ghWebhook.pidfile,
    statusFile: async () => {
      const { readWebhookStatus, webhookStatusPath } = await import("../../webhook/mod.ts");
      return { path: webhookStatusPath, read: readWebhookStatus };
    },
    rows: (status, statusFile) =>
      status
        ? [["url", status.url], ["started", status.startedAt], ...troubleRows(status)]
        : [["status", `none recorded (${statusFile})`]],
  });
}
