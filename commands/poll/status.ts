/**
 * `the-loop poll status [--format table|json]`: whether a poller runs (the pidfile's lock is the
 * only proof: `poll-status.json` holds no pid, so a forged or stale status never makes a dead
 * poller look alive) and what its last cycle did. Exit 0 whether or not one runs.
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

/** Adds `status` to the `poll` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("status")
    .description("say whether a poller runs and what its last cycle did")
    .option("--pidfile <path>", "the poller's pidfile (default: polling.pidfile)");
  formatOption(cmd, ["table", "json"], "table");
  cmd.action((flags: StatusFlags) =>
    jsonOnFailure(ctx, { json: flags.format === "json", command: "poll status" }, async (ctx) => {
      const loaded = await loadCliConfig(ctx);
      const { config } = loaded;
      const { lockHolder } = await import("../../daemon/mod.ts");
      const { readStatus, statusPath } = await import("../../poll/mod.ts");
      const pidfile = pathFlag(flags.pidfile, config.polling.pidfile, ctx.cwd);
      const holder = await lockHolder(pidfile);
      const status = await readStatus(config.state.root);
      const running = holder.live;
      if (flags.format === "json") {
        printEnvelope(ctx, "poll status", { ok: true, config: configRef(loaded) }, {
          running,
          pid: running ? holder.pid : null,
          pidfile,
          statusFile: statusPath(config.state.root),
          status: status ?? null,
        });
        return;
      }
      const rows = lockRows(holder, pidfile);
      if (status) {
        const c = status.lastCycle;
        rows.push(
          ["started", status.startedAt],
          ["last cycle", status.lastCycleAt ?? "none yet"],
          ["interval", `${status.intervalSeconds}s`],
        );
        if (c) {
          rows.push(
            ["items seen", String(c.itemsSeen)],
            ["spawns", String(c.spawns)],
            ["comments forwarded", String(c.commentsForwarded)],
            ["closures", String(c.closures)],
            ["failures", String(c.failures)],
            ["errors", String(c.errors)],
            ["interrupted", c.interrupted ? "yes" : "no"],
            ["requests", `${c.requests ?? 0} (${c.notModified ?? 0} answered 304)`],
          );
        }
        rows.push(...troubleRows(status));
      } else {
        rows.push(["last cycle", `none recorded (${statusPath(config.state.root)})`]);
      }
      ctx.write(table(["", ""], rows).split("\n").slice(1).join("\n"));
    })
  );
}
