/**
 * `<state.root>/poll-status.json`: when the poller started, when its last cycle ended, its interval
 * and the last cycle's counts. It holds no pid: liveness comes from the pidfile's lock alone, so a
 * forged or stale status file can never make a dead poller look alive (case 32).
 *
 * @module
 */
import { join } from "node:path";
import { writeFileAtomic } from "../state/atomic.ts";
import type { CycleCounts } from "./_cycle.ts";
import type { CycleReport } from "./poller.ts";

/** The status file's name under the state root. */
export const STATUS_FILE = "poll-status.json";

/** The last cycle's counts, as the status file holds them. */
export interface LastCycle extends Omit<CycleCounts, "complete"> {
  requests: number;
  notModified: number;
}

/** The status file. */
export interface PollStatus {
  startedAt: string;
  lastCycleAt: string;
  intervalSeconds: number;
  lastCycle: LastCycle;
}

/** Where the status file of a state root lives. */
export function statusPath(stateRoot: string): string {
  return join(stateRoot, STATUS_FILE);
}

/** Writes the status after a cycle (atomically). */
export async function writeStatus(
  stateRoot: string,
  opts: { startedAt: string; intervalSeconds: number; report: CycleReport; at?: Date },
): Promise<void> {
  const r = opts.report;
  const status: PollStatus = {
    startedAt: opts.startedAt,
    lastCycleAt: (opts.at ?? new Date()).toISOString(),
    intervalSeconds: opts.intervalSeconds,
    lastCycle: {
      itemsSeen: r.itemsSeen,
      spawns: r.spawns,
      commentsForwarded: r.commentsForwarded,
      closures: r.closures,
      failures: r.failures,
      errors: r.errors,
      interrupted: r.interrupted,
      requests: r.requests,
      notModified: r.notModified,
    },
  };
  await writeFileAtomic(statusPath(stateRoot), JSON.stringify(status, null, 2) + "\n");
}

/** Reads the status file; undefined when there is none or it is not one. */
export async function readStatus(stateRoot: string): Promise<PollStatus | undefined> {
  try {
    const value = JSON.parse(await Deno.readTextFile(statusPath(stateRoot)));
    if (
      value && typeof value.startedAt === "string" && typeof value.lastCycleAt === "string" &&
      typeof value.lastCycle === "object" && value.lastCycle !== null
    ) return value as PollStatus;
  } catch { /* missing or unreadable: no status */ }
  return undefined;
}
