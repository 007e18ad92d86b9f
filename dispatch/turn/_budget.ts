/**
 * Budgets that pause, not kill (`routing.budgets`, `routing.loopGuard`; the counting is the pure
 * `state/usage.ts`). The dispatcher keeps each session's usage in memory ({@linkcode Meters},
 * seeded from its record, which the deliveries log keeps durable) and asks it:
 *
 * - before a batch goes in ({@linkcode admit}): each delivery in order, against the deliveries
 *   an hour, the loop guard (comments and reviews per author), the session's hours and the sums
 *   the harness reported; the first that would cross a limit and the rest are held;
 * - before a launch (a spawn, or a relaunch of a dead harness): the launches of the day;
 * - after a run reported what it used ({@linkcode afterRun}): cost, tokens and turns, so the run
 *   that crossed one is the last.
 *
 * Crossing one pauses the item ({@linkcode pauseForBudget}): the session (when there is one) is
 * `paused` — never killed, its conversation kept — a suspension record holds the deliveries
 * (the same holding as a parked hook: in order, on disk before they are answered, delivered on
 * resume), `budget.exceeded`, and one marked comment says which budget, the figures and how to go
 * on. A resume (`the-loop:resume-execution`, `sessions resume`, `hooks resume`) grants one more
 * window (`grantFor` of `meters.ts`).
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { SessionRecord } from "../../state/registry.ts";
import {
  BUDGET_UNITS,
  type BudgetBreach,
  type Budgets,
  countDelivery,
  countLaunch,
  countRun,
  overBudget,
  type RunUse,
  type SessionUsage,
  unmeasured,
  windowUse,
} from "../../state/usage.ts";
import type { RunLimits } from "../seams.ts";
import type { SuspensionRecord } from "../suspensions/mod.ts";
import type { RoutedEvent, RoutedKind } from "../types.ts";
import { postComment } from "./comments.ts";
import type { Pending } from "./batch.ts";
import type { Handled, Turn } from "./turn.ts";
import { heldOf } from "./suspend.ts";

/** The kinds the loop guard counts: words someone wrote to the item. */
const GUARDED: Readonly<Record<RoutedKind, boolean>> = {
  comment: true,
  review: true,
  review_comment: true,
  item: false,
  close: false,
  ci: false,
  presence: false,
};

/** Whose words `event` carries, for the loop guard (`undefined`: it does not count). */
export function guardedAuthor(event: RoutedEvent): string | undefined {
  if (!GUARDED[event.kind]) return undefined;
  return event.author ?? event.actor ?? undefined;
}

function budgetsOf(turn: Turn): Budgets {
  return turn.config.budgets ?? {};
}

/** What is left of the cost and turn budgets, as caps for a headless run. */
export function limitsFor(turn: Turn, usage: SessionUsage | undefined): RunLimits | undefined {
  const b = budgetsOf(turn);
  const w = usage ? windowUse(usage, turn.deps.now()) : undefined;
  const limits: RunLimits = {};
  if (b.turns && b.turns > 0) limits.maxTurns = Math.max(1, b.turns - (w?.turns ?? 0));
  if (b.costUsd && b.costUsd > 0) {
    limits.maxBudgetUsd = Math.max(0.01, Math.round((b.costUsd - (w?.costUsd ?? 0)) * 100) / 100);
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/**
 * Splits a batch before it goes in: the deliveries within the budgets (counted), and from the
 * first that would cross one, the breach and the rest (to hold).
 */
export function admit(
  batch: Pending[],
  current: SessionRecord,
): { go: Pending[]; stop?: { breach: BudgetBreach; held: Pending[] } } {
  const turn = batch[0].turn;
  const { meters } = turn.deps;
  let usage = meters.of(current);
  // budgets pause into the suspensions store: without one (a bare test rig) they are not kept
  if (!usage || !turn.deps.suspensions) return { go: batch };
  const now = turn.deps.now();
  const budgets = budgetsOf(turn);
  const loopGuard = turn.config.loopGuard;
  warnUnmeasured(turn, current, usage);
  for (let i = 0; i < batch.length; i++) {
    const author = guardedAuthor(batch[i].event);
    const breach = overBudget(usage, { budgets, loopGuard, now, next: { author } });
    if (breach) {
      meters.set(current, usage);
      return { go: batch.slice(0, i), stop: { breach, held: batch.slice(i) } };
    }
    usage = countDelivery(usage, { at: now, author });
  }
  meters.set(current, usage);
  return { go: batch };
}

/** `budget.not_measured`, once per session, for a cost/tokens/turns budget nothing reports. */
function warnUnmeasured(turn: Turn, current: SessionRecord, usage: SessionUsage): void {
  const missing = unmeasured(usage, budgetsOf(turn));
  if (missing.length === 0) return;
  // a headless harness says what a run used once one ran; a tmux session never does
  if (turn.deps.runner.kind !== "tmux" && usage.runs === 0 && usage.delivered < 2) return;
  if (!turn.deps.meters.firstWarning(current)) return;
  turn.emit("budget.not_measured", { budgets: missing, harness: current.harness }, "warning");
}

/** A launch of `ref`'s harness that would cross `spawnsPerDay`, or `undefined`. */
export function launchBreach(
  turn: Turn,
  record: SessionRecord | undefined,
): BudgetBreach | undefined {
  const usage = record ? turn.deps.meters.of(record) : undefined;
  if (!usage || !turn.deps.suspensions) return undefined;
  return overBudget(usage, {
    budgets: { spawnsPerDay: budgetsOf(turn).spawnsPerDay },
    now: turn.deps.now(),
    next: { spawn: true },
  });
}

/** Counts a relaunch of `record`'s harness (in the meter; the record counts it on its update). */
export function countRelaunch(turn: Turn, record: SessionRecord): void {
  const usage = turn.deps.meters.of(record);
  if (usage) turn.deps.meters.set(record, countLaunch(usage, turn.deps.now()));
}

/** Counts what a run reported; the sums' breach, if it took one to its limit. */
export function afterRun(
  turn: Turn,
  record: SessionRecord,
  use: RunUse | undefined,
): BudgetBreach | undefined {
  const { meters } = turn.deps;
  let usage = meters.of(record);
  if (!usage) return undefined;
  if (use) {
    usage = countRun(usage, use);
    meters.set(record, usage);
  }
  const b = budgetsOf(turn);
  if (!turn.deps.suspensions) return undefined;
  return overBudget(usage, {
    budgets: { costUsd: b.costUsd, tokens: b.tokens, turns: b.turns },
    now: turn.deps.now(),
  });
}

/** The sum of what several runs reported (`undefined` when none did). */
export function sumUse(uses: (RunUse | undefined)[]): RunUse | undefined {
  const reported = uses.filter((u): u is RunUse => u !== undefined);
  if (reported.length === 0) return undefined;
  const out: RunUse = {};
  for (const u of reported) {
    for (const k of ["costUsd", "tokens", "turns"] as const) {
      if (u[k] !== undefined) out[k] = (out[k] ?? 0) + u[k]!;
    }
  }
  return out;
}

const figure = (b: BudgetBreach, n: number) =>
  b.budget === "costUsd" ? `$${n.toFixed(2)}` : String(n);

/** The pause comment: which budget, the figures, how to go on. */
function pausedText(b: BudgetBreach, o: { keyword: string; ref: string; held: number }): string {
  const what = b.budget === "loop-guard"
    ? `the loop guard: ${b.who} wrote ${b.used} comments or reviews on this item within ` +
      `\`routing.loopGuard.windowMinutes\` (the limit is ${b.limit})`
    : `the budget \`routing.budgets.${b.budget}\`: ${figure(b, b.used)} of ${figure(b, b.limit)} ${
      BUDGET_UNITS[b.budget]
    }`;
  return [
    `⏸️ **the-loop** paused this item's session: it reached ${what}.`,
    "The session is kept (nothing is killed, its conversation stays); " +
    (o.held > 0
      ? `the event that would have gone past the limit and every later one are held, in order.`
      : "later events are held, in order, until it goes on."),
    `To go on with one more window: an authorized person comments \`${o.keyword}\`, or the ` +
    `operator runs \`the-loop sessions resume ${o.ref}\`. A stop keyword (or ` +
    `\`the-loop sessions stop ${o.ref}\`) ends it and discards the held events.`,
  ].join("\n\n");
}

/**
 * Pauses the turn's item for `breach`: `held` (in order; the first is the delivery that would
 * have crossed it) go into a suspension record, the session is `paused`, `budget.exceeded`, one
 * comment. With a record already there (a hook's, or an earlier pause), they join it. Resolves
 * the held deliveries (`budget-exceeded` for the first, `held` for the others).
 */
export async function pauseForBudget(
  turn: Turn,
  breach: BudgetBreach,
  held: { turn: Turn; event: RoutedEvent; resolve?: (h: Handled) => void }[],
  record: SessionRecord | undefined,
): Promise<Handled | undefined> {
  const store = turn.deps.suspensions;
  const answer = (i: number, h: Handled) => {
    const r = held[i].resolve;
    if (r) r(h);
    return h;
  };
  if (!store) {
    const gone = new Error("budgets pause into the suspensions store, and there is none");
    held.forEach((p, i) => answer(i, { outcome: p.turn.failed("dispatch", gone) }));
    return undefined;
  }
  let first: Handled | undefined;
  await store.withItem(turn.ref, async () => {
    const found = await store.ofItem(turn.ref).catch(() => undefined);
    // one being resumed (its held still replaying) is not joined: a new pause keeps what it holds
    const previous = found?.resumed ? undefined : found;
    const now = turn.deps.now().toISOString();
    const known = new Set(found?.held.map((h) => h.deliveryId) ?? []);
    const fresh = held.filter((p) => !known.has(p.event.deliveryId));
    const stored = fresh.map((p) => heldOf(p.turn, p.event, p.turn.asked));
    const next: SuspensionRecord = previous
      ? { ...previous, held: [...previous.held, ...stored] }
      : {
        version: 1,
        id: store.newId(turn.ref),
        workItem: turn.ref,
        point: "input_received",
        hook: "",
        mode: "wait_for_resume",
        declared: "budget",
        error: `budget ${breach.budget}: ${breach.used} of ${breach.limit}`,
        attempts: 0,
        since: now,
        context: {},
        budget: breach,
        held: [...stored, ...(found?.held ?? [])],
      };
    try {
      await store.put(next);
      if (found && found.id !== next.id) await store.remove(found.id);
    } catch (err) {
      const e = new Error(`holding the event: ${messageOf(err)}`);
      held.forEach((p, i) => answer(i, { outcome: p.turn.failed("dispatch", e) }));
      return;
    }
    held.forEach((p, i) => {
      const h = i === 0 && !previous
        ? p.turn.settled("budget-exceeded", false)
        : p.turn.settled("held");
      if (i === 0) first = h;
      answer(i, h);
    });
    if (previous) return;
    if (record) {
      // the counts are the deliveries log's to write (the meter is only ahead of it)
      await turn.deps.sessions.update(turn.ref, { status: "paused" }).catch((err) =>
        turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning")
      );
    }
    turn.emit("budget.exceeded", {
      id: next.id,
      budget: breach.budget,
      used: breach.used,
      limit: breach.limit,
      ...(breach.who ? { who: breach.who } : {}),
      held: next.held.length,
    }, "warning");
    const url = await postComment(
      turn,
      "refusal",
      pausedText(breach, {
        keyword: turn.config.control.keywords.resume,
        ref: turn.ref,
        held: next.held.length,
      }),
    );
    if (url !== undefined) {
      await store.put({ ...next, commentUrl: url || null }).catch(() => {});
    }
  });
  return first;
}
