/**
 * `the-loop notify test [--channel NAME] [--format table|json]`: sends a test envelope
 * (`event: "test"`) on every enabled channel of the config's collaborators — or only on the one
 * named, enabled or not — with the daemon's own senders and budget, bypassing the routing
 * (`notifications.events`, the switches), once each; prints one line per channel: its name,
 * type and what came back (`HTTP 200`, `exit 0`, or why it failed). Each send is also a
 * `notify.sent` / `notify.failed` record in the event log.
 *
 * Exit 1 when a channel failed, or when there is no channel to test (the message says how to
 * configure one); exit 2 (a usage error) when `--channel` names no channel, listing the names.
 * `--format json` prints the envelope (`commands/_envelope.ts`, `schema/cli/notify-test.json`)
 * with `channels`, in every outcome but exit 2.
 *
 * @module
 */
import type { Command } from "commander";
import { EventLog } from "../../events/mod.ts";
import { UsageError } from "../../errors.ts";
import { channelsOf, Notifier, type TestResult } from "../../notify/mod.ts";
import { visible } from "../../terminal.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { formatOption, table } from "../_output.ts";

interface TestFlags {
  channel?: string;
  format: "table" | "json";
}

const COMMAND = "notify test";

/** Adds `test` to the `notify` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("test")
    .description("send a test notification on each channel (or one) and print what came back")
    .option("--channel <name>", "only this channel (enabled or not)");
  formatOption(cmd, ["table", "json"], "table");
  cmd.action((flags: TestFlags) =>
    jsonOnFailure(
      ctx,
      { json: flags.format === "json", command: COMMAND, fields: { channels: [] } },
      (ctx) => test(ctx, flags),
    )
  );
}

/** The RESULT cell: what came back. */
export function resultText(r: TestResult): string {
  if (r.ok) return r.status !== undefined ? `HTTP ${r.status}` : `exit ${r.exitCode ?? 0}`;
  return `failed: ${r.error ?? "the send failed"}`;
}

async function test(ctx: CliContext, flags: TestFlags): Promise<void> {
  const loaded = await loadCliConfig(ctx);
  const { config } = loaded;
  const all = channelsOf(config);
  if (flags.channel !== undefined && !all.some((e) => e.channel.name === flags.channel)) {
    const names = all.map((e) => e.channel.name);
    throw new UsageError(
      `no channel is named "${flags.channel}"; ` +
        (names.length > 0 ? `the channels are: ${names.join(", ")}` : "no channel is configured"),
    );
  }
  if (flags.channel === undefined && !all.some((e) => e.channel.enabled)) {
    throw new Error(
      `no ${all.length > 0 ? "enabled " : ""}notification channel in ${loaded.origin}: add one ` +
        "under collaborators[].notifications.channels (see docs/notifications.md)" +
        (all.length > 0 ? ", or name a disabled one with --channel" : ""),
    );
  }
  const events = new EventLog({
    path: config.eventLog.path,
    source: "cli",
    enabled: config.eventLog.enabled,
  });
  let results: TestResult[];
  try {
    results = await new Notifier({ config, events, env: ctx.env }).test(flags.channel);
  } finally {
    events.close();
  }
  const ok = results.every((r) => r.ok);
  if (flags.format === "json") {
    printEnvelope(ctx, COMMAND, {
      ok,
      config: configRef(loaded),
      problems: results.filter((r) => !r.ok).map((r) => ({
        path: r.channel,
        message: r.error ?? "the send failed",
      })),
    }, { channels: results });
  } else {
    const rows = results.map((r) =>
      [r.channel, r.type, resultText(r)].map((c) => visible(c, { multiline: false }))
    );
    ctx.write(table(["CHANNEL", "TYPE", "RESULT"], rows));
  }
  if (!ok) {
    const failed = results.filter((r) => !r.ok).map((r) => r.channel);
    throw new Error(`${failed.length} of ${results.length} channels failed: ${failed.join(", ")}`);
  }
  if (flags.format !== "json") println(ctx, `ok: ${results.length} channels reached`);
}
