/**
 * Which events reach a live session (`routing.deliver`): a pure decision from the event, the
 * config and the failing checks the session remembers. The rest are settled `quiet-action` — an
 * event in the log, no turn for the agent. The dispatcher asks only about an event for a live
 * session, and only after the steps that are never filtered (a close, a control keyword, a gate
 * verdict, an answer to the agent's question, the poller's presence nudge).
 *
 * | event                          | delivered when                                                                      |
 * | ------------------------------ | ----------------------------------------------------------------------------------- |
 * | an action not listed           | never (`quiet-action`)                                                              |
 * | `issues` / `pull_request` `edited` | `changed` names a title, a body or a base                                       |
 * | a comment's or review's `edited` | `changed.body` is there and differs from the new text                             |
 * | `labeled` / `unlabeled`        | the auto-execute label, or any label with `labels: any`                              |
 * | CI                             | its result is listed: `failed`, `succeeded`, `pending`, or `recovered` (the first success of a check that failed on this session) |
 * | an event with no list          | always (one added to `webhooks.ghWebhook.events` that `routing.deliver` does not name) |
 *
 * An edit the poller built (`via: poll`) carries no `changed` (REST does not say what was
 * before): it is delivered, as it was before `routing.deliver`.
 *
 * ```ts
 * isQuiet(event, routing.deliver, { autoExecuteLabel: routing.autoExecuteLabel, ciFailing: [] });
 * ```
 *
 * @module
 */
import type { CiDelivery, DeliverConfig } from "../config/mod.ts";
import type { CiFacts, RoutedEvent } from "./types.ts";

/** What a CI event reports, as `routing.deliver.ci` sorts it (`recovered` is a `succeeded`). */
export type CiResult = Exclude<CiDelivery, "recovered">;

/** The conclusions (and commit-status states) that are a failure. */
const FAILED: ReadonlySet<string> = new Set([
  "failure",
  "timed_out",
  "cancelled",
  "action_required",
  "startup_failure",
  "error", // a commit status's
]);

/** The conclusions GitHub counts as passing (a required check that is neutral or skipped passes). */
const SUCCEEDED: ReadonlySet<string> = new Set(["success", "neutral", "skipped"]);

/** A CI event's result: failed, succeeded, or pending (not completed, or `stale`). */
export function ciResultOf(ci: CiFacts | undefined): CiResult {
  const conclusion = ci?.conclusion?.toLowerCase() ?? "";
  if (FAILED.has(conclusion)) return "failed";
  if (SUCCEEDED.has(conclusion)) return "succeeded";
  return "pending";
}

/** The name a check is remembered by: its name (a status's context), else the event's name. */
export function ciKeyOf(event: Pick<RoutedEvent, "ci" | "ghEvent">): string {
  return event.ci?.name ?? event.ghEvent;
}

/**
 * The session's failing checks after `event`: its check added on a failure, removed on a
 * success; `undefined` when they do not change (a pending run, an event that is no CI).
 */
export function nextCiFailing(
  event: Pick<RoutedEvent, "kind" | "ci" | "ghEvent">,
  failing: readonly string[],
): string[] | undefined {
  if (event.kind !== "ci") return undefined;
  const key = ciKeyOf(event);
  const result = ciResultOf(event.ci);
  if (result === "failed" && !failing.includes(key)) return [...failing, key];
  if (result === "succeeded" && failing.includes(key)) return failing.filter((k) => k !== key);
  return undefined;
}

/** What {@linkcode isQuiet} needs besides the event and the config. */
export interface QuietOptions {
  /** `routing.autoExecuteLabel`. */
  autoExecuteLabel: string;
  /** The checks that failed on the session and have not passed since (before this event). */
  ciFailing?: readonly string[];
}

/** The GitHub events `routing.deliver` lists the actions of. */
type Listed = Exclude<keyof DeliverConfig, "ci" | "labels">;

/** Every listed event (a key added to `DeliverConfig` fails to compile until it is here). */
const LISTED: Readonly<Record<Listed, true>> = {
  issues: true,
  pull_request: true,
  pull_request_review: true,
  pull_request_review_comment: true,
  issue_comment: true,
};

const isListed = (ghEvent: string): ghEvent is Listed => Object.hasOwn(LISTED, ghEvent);

/** Whether an `edited` event changed what the agent reads. */
function changedEnough(event: RoutedEvent): boolean {
  const changed = event.changed;
  // the poller's edits carry no `changes` (REST does not say): delivered, as before
  if (!changed) return event.via === "poll";
  if (event.kind === "item") {
    return changed.title !== undefined || changed.body !== undefined || changed.base !== undefined;
  }
  return changed.body !== undefined && changed.body !== event.text;
}

/** Whether a CI event is left out: its result is not listed (a success: nor a recovery). */
function ciQuiet(event: RoutedEvent, deliver: DeliverConfig, failing: readonly string[]): boolean {
  const result = ciResultOf(event.ci);
  if (deliver.ci.includes(result)) return false;
  const recovered = result === "succeeded" && failing.includes(ciKeyOf(event));
  return !(recovered && deliver.ci.includes("recovered"));
}

/**
 * Whether `event` (for a live session) is a quiet action: settled `quiet-action`, no turn.
 * A close and a presence nudge are never quiet.
 */
export function isQuiet(event: RoutedEvent, deliver: DeliverConfig, opts: QuietOptions): boolean {
  if (event.kind === "close" || event.kind === "presence") return false;
  if (event.kind === "ci") return ciQuiet(event, deliver, opts.ciFailing ?? []);
  if (!isListed(event.ghEvent)) return false;
  if (!deliver[event.ghEvent].includes(event.action)) return true;
  if (event.action === "edited") return !changedEnough(event);
  if (event.action === "labeled" || event.action === "unlabeled") {
    return deliver.labels !== "any" &&
      (opts.autoExecuteLabel === "" || event.label !== opts.autoExecuteLabel);
  }
  return false;
}
