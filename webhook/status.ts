/**
 * `<state.root>/gh-webhook-status.json`: the receiver's pid, URL and start, its last error (kind,
 * message, when), its last long rate-limit wait and why it is degraded. Written atomically when
 * it starts listening and when any of these change. Liveness comes from the pidfile's lock, never
 * from this file (`gh-webhook status` asks the lock).
 *
 * @module
 */
import { join } from "node:path";
import type { LastError, RateLimitWait } from "../daemon/mod.ts";
import { writeFileAtomic } from "../state/atomic.ts";

/** The status file's name under the state root. */
export const WEBHOOK_STATUS_FILE = "gh-webhook-status.json";

/** The status file. */
export interface WebhookStatus {
  pid: number;
  url: string;
  startedAt: string;
  lastError: LastError | null;
  rateLimit: RateLimitWait | null;
  /** Why the receiver is degraded now (`/health` answers 503 with them); empty when it is not. */
  degraded: string[];
}

/** Where the status file of a state root lives. */
export function webhookStatusPath(stateRoot: string): string {
  return join(stateRoot, WEBHOOK_STATUS_FILE);
}

/** Writes `status` atomically. */
export async function writeWebhookStatus(stateRoot: string, status: WebhookStatus): Promise<void> {
  await writeFileAtomic(webhookStatusPath(stateRoot), JSON.stringify(status, null, 2) + "\n");
}

/** Reads the status file; undefined when there is none or it is not one. */
export async function readWebhookStatus(stateRoot: string): Promise<WebhookStatus | undefined> {
  try {
    const v = JSON.parse(await Deno.readTextFile(webhookStatusPath(stateRoot)));
    if (v && typeof v.startedAt === "string" && typeof v.url === "string") {
      return { lastError: null, rateLimit: null, degraded: [], ...v } as WebhookStatus;
    }
  } catch { /* missing or unreadable: no status */ }
  return undefined;
}
