/**
 * Each session's usage against its budgets as this process counted it ({@linkcode Meters}: ahead
 * of its record by the batch whose note is still to be written; seeded from the record, which
 * the deliveries log keeps durable), and the grant of one more window after a budget's pause
 * ({@linkcode grantFor}). The checks are `_budget.ts`'s; the counting is `state/usage.ts`.
 *
 * @module
 */
import type { SessionRecord } from "../../state/registry.ts";
import { grant, type SessionUsage } from "../../state/usage.ts";
import type { DispatchSessions } from "../seams.ts";

/** Each session's usage as this process counted it (ahead of its record by the unnoted batch). */
export class Meters {
  readonly #kept = new Map<string, { createdAt: string; usage: SessionUsage }>();
  readonly #warned = new Set<string>();

  /** The usage of `record`'s session: what was counted here, else its record's. */
  of(record: SessionRecord): SessionUsage | undefined {
    const kept = this.#kept.get(record.workItem.ref);
    if (kept && kept.createdAt === record.createdAt) return kept.usage;
    if (!record.usage) return undefined;
    this.#kept.set(record.workItem.ref, { createdAt: record.createdAt, usage: record.usage });
    return record.usage;
  }

  set(record: SessionRecord, usage: SessionUsage): void {
    this.#kept.set(record.workItem.ref, { createdAt: record.createdAt, usage });
  }

  /** True the first time it is asked for `record`'s session (one warning per session). */
  firstWarning(record: SessionRecord): boolean {
    const key = `${record.workItem.ref} ${record.createdAt}`;
    if (this.#warned.has(key)) return false;
    this.#warned.add(key);
    return true;
  }
}

/**
 * One more window for a budget's pause being resumed: the counts start again, the sums from
 * here, and a paused session is active again. Written to the record (where the deliveries log's
 * counts are) and to the meter.
 */
export async function grantFor(
  deps: { sessions: DispatchSessions; meters: Meters; now: () => Date },
  ref: string,
): Promise<void> {
  const record = await deps.sessions.get?.(ref);
  if (!record) return;
  const usage = deps.meters.of(record);
  const next = await deps.sessions.update(ref, {
    ...(record.status === "paused" ? { status: "active" } : {}),
    grant: true,
  });
  if (next && usage) deps.meters.set(next, grant(usage, deps.now()));
}
