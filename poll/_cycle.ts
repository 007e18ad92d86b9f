/**
 * What the parts of one cycle share: the poller's collaborators, the settings in force, and the
 * counts `poll.cycle` reports.
 *
 * @module
 */
import type { EventSink } from "../events/mod.ts";
import {
  type IngressEvent,
  isAuthorized,
  type RouteResult,
  type RouteSink,
} from "../ingress/mod.ts";
import { type FailureCause, reasonOf, type SettledReason } from "../dispatch/mod.ts";
import type { SessionLookup } from "../state/registry.ts";
import type { ControlRecord } from "../state/control.ts";
import { messageOf } from "../errors.ts";
import { type FailureKind, failureKindOf } from "../daemon/mod.ts";
import type { Ledger } from "./ledger.ts";
import type { PollGitHub } from "./thread.ts";
import type { PollSettings } from "./settings.ts";

/** Reads a control keyword out of a comment (`dispatch/mod.ts`'s `parseControl`, bound to the config). */
export type ControlParser = (
  text: string,
) => { command?: string; ambiguous?: readonly string[] | boolean };

/** The control records as the poller reads them. */
export interface ControlView {
  get(ref: string): Promise<ControlRecord | undefined>;
  clear(ref: string): Promise<void>;
  /** Called at the start of each cycle (a view may cache what exists for the cycle). */
  refresh?(): Promise<void>;
}

/** Why the poller hands something over (printed by `--dry-run`). */
export interface Handover {
  deliveryId: string;
  workItem: string;
  why: string;
}

/** The counts of one cycle. */
export interface CycleCounts {
  itemsSeen: number;
  spawns: number;
  commentsForwarded: number;
  closures: number;
  failures: number;
  errors: number;
  interrupted: boolean;
  complete: boolean;
}

/** Everything a cycle's parts use. */
export interface CycleState {
  gh: PollGitHub;
  sink: RouteSink;
  ledger: Ledger;
  sessions: SessionLookup;
  control: ControlView;
  events: EventSink;
  parseControl: ControlParser;
  settings: PollSettings;
  counts: CycleCounts;
  version: string;
  now: () => number;
  dryRun: boolean;
  onHandover?: (h: Handover) => void;
  /** The cycle's failures by kind (`poll.provider_error`s), for the operator. */
  failed: Map<FailureKind, CycleFailure>;
}

/** One kind of failure in a cycle: how many, and the last one's message. */
export interface CycleFailure {
  kind: FailureKind;
  count: number;
  message: string;
}

/**
 * Counts a failed GitHub read (`error`) or a source that polls nothing (`kind: "config"`): one
 * more error in the cycle, its kind noted for the operator. A shutdown's abort is not a failure.
 */
export function noteFailure(s: CycleState, error: unknown, kind?: FailureKind): void {
  s.counts.errors++;
  if ((error as { kind?: string })?.kind === "aborted") return;
  const k = kind ?? failureKindOf(error);
  const seen = s.failed.get(k);
  const message = messageOf(error);
  if (seen) {
    seen.count++;
    seen.message = message;
  } else s.failed.set(k, { kind: k, count: 1, message });
}

/** The current time as ISO text. */
export function isoNow(s: CycleState): string {
  return new Date(s.now()).toISOString();
}

/**
 * Is `login` in the allowlist (case-insensitively), by the router's rule: a bot (`[bot]`
 * login) only through `authorizedBots`, a person only through `authorizedUsers`?
 */
export function authorized(s: CycleState, login: string | null | undefined): boolean {
  return !!login &&
    isAuthorized("issue_comment", login, s.settings.authorizedUsers, {
      authorizedBots: s.settings.authorizedBots,
    });
}

/** A route that never throws: a throw becomes a retryable failure. */
export async function routeSafely(
  s: CycleState,
  event: IngressEvent,
  why: string,
  workItem: string,
): Promise<RouteResult | { status: "error"; reason: string }> {
  s.onHandover?.({ deliveryId: event.deliveryId, workItem, why });
  try {
    return await s.sink.route(event);
  } catch (error) {
    return { status: "error", reason: messageOf(error) };
  }
}

/**
 * A route result reduced to what the ledger needs. A failure `release`s its attempt (gives it
 * back) when every failed dispatch was aborted by a stop; a timeout or an error spends one, and
 * is retried while `retry` says it may help.
 */
export type Verdict =
  | { kind: "dropped" }
  | { kind: "done"; delivered: boolean; settled: SettledReason[] }
  | { kind: "failed"; retry: boolean; reason: string; release: boolean };

/** Whether a failure of this cause spends one of the delivery's attempts. */
const SPENDS_ATTEMPT: Readonly<Record<FailureCause, boolean>> = {
  aborted: false, // stopped by its signal (the poller gives none): not the delivery's fault
  timeout: true,
  error: true,
};

/** Reduces a route result. */
export function verdictOf(result: RouteResult | { status: "error"; reason: string }): Verdict {
  if (result.status === "error") {
    return { kind: "failed", retry: true, reason: result.reason, release: false };
  }
  if (result.status === "dropped") return { kind: "dropped" };
  const failed = result.outcomes.map((o) => o.outcome).filter((o) => o.status === "failed");
  if (failed.length > 0) {
    return {
      kind: "failed",
      retry: failed.every((f) => f.retry),
      reason: failed.map((f) => reasonOf(f)).join("; "),
      release: failed.every((f) => !SPENDS_ATTEMPT[f.cause]),
    };
  }
  const settled = result.outcomes.flatMap((o) =>
    o.outcome.status === "settled" ? [o.outcome.reason] : []
  );
  const delivered = result.outcomes.some((o) => o.outcome.status === "delivered");
  return { kind: "done", delivered, settled };
}
