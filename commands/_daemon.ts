/**
 * What `poll` and `gh-webhook` share as commands: path flags, `status` (the lock's rows, then the
 * daemon's own, trouble rows among them), and `stop` — signal the daemon holding the lock (SIGTERM) and wait until it has
 * let go. A stale pidfile is removed and nobody is signalled; no
 * pidfile, a stale one, or a daemon outliving `--timeout` exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, join } from "node:path";
import type { CliConfig } from "../config/mod.ts";
import type { LastError, LockHolder, RateLimitWait } from "../daemon/mod.ts";
import { UsageError } from "../errors.ts";
import { loadCliConfig } from "./_config.ts";
import { type CliContext, println } from "./context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "./_envelope.ts";
import { formatOption, table } from "./_output.ts";

/** A path flag made absolute against `cwd`, else `fallback` (the config's). */
export function pathFlag(flag: string | undefined, fallback: string, cwd: string): string {
  if (!flag) return fallback;
  return isAbsolute(flag) ? flag : join(cwd, flag);
}

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
      // the config is read only when --pidfile does not say where
      const pidfile = flags.pidfile
        ? pathFlag(flags.pidfile, "", ctx.cwd)
        : o.pidfileOf((await loadCliConfig(ctx)).config);
      const { describeStop, stopDaemon } = await import("../daemon/mod.ts");
      const result = await stopDaemon(pidfile, { timeoutMs: seconds * 1000 });
      const message = describeStop(o.what, pidfile, result);
      if (result.outcome !== "stopped") throw new Error(message);
      println(ctx, `${o.prefix}: ${message}`);
    });
}

interface StatusFlags {
  pidfile?: string;
  format: "table" | "json";
}

/** What differs between the two daemons' `status`. */
export interface DaemonStatusOptions<S> {
  /** The command as its envelope names it: `poll status`. */
  command: string;
  description: string;
  /** `--pidfile`'s help. */
  pidfileHelp: string;
  /** The pidfile from the config. */
  pidfileOf(config: CliConfig): string;
  /** The status file's reader (imported only when the command runs). */
  statusFile(): Promise<{
    path(stateRoot: string): string;
    read(stateRoot: string): Promise<S | undefined>;
  }>;
  /** The table's rows after {@linkcode lockRows}: the status file's, or those saying there is none. */
  rows(status: S | undefined, statusFile: string): string[][];
}

/**
 * Adds `status` to a daemon's command group: whether it runs (the pidfile's lock is the only
 * proof) and what its status file says, as a table or a JSON envelope. Exit 0 whether or not one
 * runs.
 */
export function registerStatus<S>(
  group: Command,
  ctx: CliContext,
  o: DaemonStatusOptions<S>,
): void {
  const cmd = group.command("status")
    .description(o.description)
    .option("--pidfile <path>", o.pidfileHelp);
  formatOption(cmd, ["table", "json"], "table");
  cmd.action((flags: StatusFlags) =>
    jsonOnFailure(ctx, { json: flags.format === "json", command: o.command }, async (ctx) => {
      const loaded = await loadCliConfig(ctx);
      const { config } = loaded;
      const { lockHolder } = await import("../daemon/mod.ts");
      const file = await o.statusFile();
      const pidfile = pathFlag(flags.pidfile, o.pidfileOf(config), ctx.cwd);
      const holder = await lockHolder(pidfile);
      const status = await file.read(config.state.root);
      const running = holder.live;
      const statusFile = file.path(config.state.root);
      if (flags.format === "json") {
        printEnvelope(ctx, o.command, { ok: true, config: configRef(loaded) }, {
          running,
          pid: running ? holder.pid : null,
          pidfile,
          statusFile,
          status: status ?? null,
        });
        return;
      }
      const rows = [...lockRows(holder, pidfile), ...o.rows(status, statusFile)];
      ctx.write(table(["", ""], rows).split("\n").slice(1).join("\n"));
    })
  );
}

/** What both daemons' status files say of their trouble. */
export interface TroubleStatus {
  lastError?: LastError | null;
  rateLimit?: RateLimitWait | null;
  degraded?: string[];
}

/** The first rows of a daemon's `status` table: whether it runs (the lock's holder), and its pidfile. */
export function lockRows(holder: LockHolder, pidfile: string): string[][] {
  return [
    ["running", holder.live ? `yes (pid ${holder.pid ?? "unknown"})` : "no"],
    [
      "pidfile",
      pidfile + (holder.exists && !holder.live ? " (stale: left by a dead process)" : ""),
    ],
  ];
}

/** The `status` table's rows of a daemon's trouble: last error, rate-limit wait, degraded. */
export function troubleRows(s: TroubleStatus, now: number = Date.now()): string[][] {
  const rows: string[][] = [];
  const e = s.lastError;
  rows.push(["last error", e ? `${e.at} ${e.kind}: ${e.message}` : "none"]);
  const r = s.rateLimit;
  if (r) {
    const waiting = Date.parse(r.until) > now;
    rows.push([
      "rate limit",
      `${waiting ? "waiting" : "waited"} until ${r.until} (${r.reason}, from ${r.at})`,
    ]);
  }
  const reasons = s.degraded ?? [];
  rows.push(["degraded", reasons.length === 0 ? "no" : reasons.join("; ")]);
  return rows;
}
