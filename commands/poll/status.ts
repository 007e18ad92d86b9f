/**
 * `the-loop poll status [--format table|json]`: whether a poller runs (the pidfile's lock is the
 * only proof: `poll-status.json` holds no pid, so a forged or stale status never makes a dead
 * poller look alive) and what its last cycle did. Exit 0 whether or not one runs.
 *
 * @module
 */
import type { Command } from "commander";
import { registerStatus, troubleRows } from "../_daemon.ts";
import type { CliContext } from "../context.ts";
import type { PollStatus } from "../../poll/mod.ts";

/** Adds `status` to the `poll` group. */
export function register(group: Command, ctx: CliContext): void {
  registerStatus<PollStatus>(group, ctx, {
    command: "poll status",
    description: "say whether a poller runs and what its last cycle did",
    pidfileHelp: "the poller's pidfile (default: polling.pidfile)",
    pidfileOf: (config) => config.polling.pidfile,
    statusFile: async () => {
      const { readStatus, statusPath } = await import("../../poll/mod.ts");
      return { path: statusPath, read: readStatus };
    },
    rows: (status, statusFile) => {
      if (!status) return [["last cycle", `none recorded (${statusFile})`]];
      const c = status.lastCycle;
      return [
        ["started", status.startedAt],
        ["last cycle", status.lastCycleAt ?? "none yet"],
        ["interval", `${status.intervalSeconds}s`],
        ...(c
          ? [
            ["items seen", String(c.itemsSeen)],
            ["spawns", String(c.spawns)],
            ["comments forwarded", String(c.commentsForwarded)],
            ["closures", String(c.closures)],
            ["failures", String(c.failures)],
            ["errors", String(c.errors)],
            ["interrupted", c.interrupted ? "yes" : "no"],
            ["requests", `${c.requests ?? 0} (${c.notModified ?? 0} answered 304)`],
          ]
          : []),
        ...troubleRows(status),
      ];
    },
  });
}
