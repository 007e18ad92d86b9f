/**
 * `<state.root>/poll-status.json`: when the poller started, when its last cycle ended, its interval,
 * the last cycle's counts, the last error (kind, message, when), the last long rate-limit wait and
 * why the poller is degraded. It holds no pid: liveness comes from the pidfile's lock alone, so a
 * forged or stale status file can never make a dead poller look alive.
 *
 * {@linkcode StatusKeeper} holds the status in memory and writes it atomically at start, after
 * each cycle, and when a failure or a long rate-limit wait is noted between cycles.
 *
 * @module
 */
import { join } from "node:path";
import type { LastError, RateLimitWait } from "../daemon/mod.ts";
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

export type { RateLimitWait };

/** The status file. */
export interface PollStatus {
  startedAt: string;
  /** Null until the first cycle ended. */
  lastCycleAt: string | null;
  intervalSeconds: number;
  lastCycle: LastCycle | null;
  /** The last failure (a GitHub read, a state write, the event log), null when none yet. */
  lastError: LastError | null;
  /** The last rate-limit wait longer than 10 s, null when none. */
  rateLimit: RateLimitWait | null;
  /** Why the poller is degraded now (a file it cannot write); empty when it is not. */
  degraded: string[];
}

/** Where the status file of a state root lives. */
export function statusPath(stateRoot: string): string {
  return join(stateRoot, STATUS_FILE);
}

/** The last cycle's counts of a report. */
export function lastCycleOf(r: CycleReport): LastCycle {
  return {
    itemsSeen: r.itemsSeen,
    spawns: r.spawns,
    commentsForwarded: r.commentsForwarded,
    closures: r.closures,
    failures: r.failures,
    errors: r.errors,
    interrupted: r.interrupted,
    requests: r.requests,
    notModified: r.notModified,
  };
}

/** Writes `status` atomically. */
export async function writeStatus(stateRoot: string, status: PollStatus): Promise<void> {
  await writeFileAtomic(statusPath(stateRoot), JSON.stringify(status, null, 2) + "\n");
}

/** The poller's status, kept in memory and written through (writes never overlap). */
export class StatusKeeper {
  readonly root: string;
  #status: PollStatus;
  #writing: Promise<void> = Promise.resolve();

  constructor(root: string, init: { startedAt: string; intervalSeconds: number }) {
    this.root = root;
    this.#status = {
      startedAt: init.startedAt,
      lastCycleAt: null,
      intervalSeconds: init.intervalSeconds,
      lastCycle: null,
      lastError: null,
      rateLimit: null,
      degraded: [],
    };
  }

  /** The status as it stands. */
  get status(): PollStatus {
    return this.#status;
  }

  /** Merges `patch` into the status and writes it; rejects when the write fails. */
  update(patch: Partial<PollStatus>): Promise<void> {
    this.#status = { ...this.#status, ...patch };
    const write = this.#writing.catch(() => {}).then(() => writeStatus(this.root, this.#status));
    this.#writing = write;
    return write;
  }

  /** Resolves when no write is pending (whether the last one failed or not). */
  async idle(): Promise<void> {
    let last: Promise<void> | undefined;
    while (last !== this.#writing) {
      last = this.#writing;
      await last.catch(() => {});
    }
  }
}

/** Reads the status file; undefined when there is none or it is not one. */
export async function readStatus(stateRoot: string): Promise<PollStatus | undefined> {
  try {
    const value = JSON.parse(await Deno.readTextFile(statusPath(stateRoot)));
    if (
      value && typeof value.startedAt === "string" &&
      (typeof value.lastCycleAt === "string" || value.lastCycleAt === null) &&
      typeof value.lastCycle === "object"
    ) {
      return {
        lastError: null,
        rateLimit: null,
        degraded: [],
        ...value,
      } as PollStatus;
    }
  } catch { /* missing or unreadable: no status */ }
  return undefined;
}
