/**
 * What a session has used, against `routing.budgets` and `routing.loopGuard`: a pure core the
 * session record carries as `usage` (durable: the registry folds each delivery note into it) and
 * the dispatcher keeps in memory between notes (`dispatch/turn/_budget.ts`).
 *
 * - deliveries: a count per minute over the last hour (the spawn counts as the first delivery);
 * - authors: the comments and reviews each login delivered, per minute over the last hour (the
 *   loop guard);
 * - launches: when a harness of this item was launched, over the last day, carried from one
 *   session of the item to the next (a respawn storm spans sessions);
 * - costUsd / tokens / turns: summed from what the harness reported of each run, absent while it
 *   reported nothing (then a budget on them is "not measured", never silently passed);
 * - a window: `since` (the spawn, or the last grant) and `base` (the sums at that moment). A
 *   grant (`the-loop:resume-execution`, `sessions resume`) opens one more window: the counts and
 *   the sums from there.
 *
 * @example
 * ```ts
 * import { countDelivery, freshUsage, overBudget } from "./usage.ts";
 * const now = new Date("2026-12-05T10:00:00Z");
 * let u = freshUsage({ now, launches: [] });
 * u = countDelivery(u, { at: now, author: "octocat" });
 * overBudget(u, { budgets: { deliveriesPerHour: 1 }, now }); // { budget: "deliveriesPerHour", used: 1, limit: 1 }
 * ```
 *
 * @module
 */

/** A count in one minute: `[minutes since the epoch, count]`. */
export type MinuteCount = [number, number];

/** What one harness run reported (each absent when the harness did not report it). */
export interface RunUse {
  costUsd?: number;
  tokens?: number;
  turns?: number;
}

/** A session's usage (the record's `usage`). */
export interface SessionUsage {
  /** The window's start: the spawn, or the last grant (ISO). */
  since: string;
  /** Windows granted after a pause. */
  grants: number;
  /** Deliveries since the spawn (all windows). */
  delivered: number;
  /** Deliveries per minute, the last hour. */
  deliveries: MinuteCount[];
  /** Comments and reviews delivered per author login, per minute, the last hour. */
  authors: Record<string, MinuteCount[]>;
  /** The item's harness launches, the last day (ISO, oldest first). */
  launches: string[];
  /** Runs that reported what they used. */
  runs: number;
  costUsd?: number;
  tokens?: number;
  turns?: number;
  /** The sums when the window opened (a grant); absent = zero. */
  base?: RunUse;
}

/** The budgets one item is held to (`routing.budgets`; 0 or absent = off). */
export interface Budgets {
  deliveriesPerHour?: number;
  spawnsPerDay?: number;
  sessionHours?: number;
  costUsd?: number;
  tokens?: number;
  turns?: number;
}

/** The loop guard (`routing.loopGuard`; `maxPerWindow` 0 = off). */
export interface LoopGuard {
  maxPerWindow: number;
  windowMinutes: number;
}

/** Which limit was crossed. */
export type BudgetName = keyof Budgets | "loop-guard";

/** A crossed limit: which, what was used and the limit (`who` for the loop guard). */
export interface BudgetBreach {
  budget: BudgetName;
  used: number;
  limit: number;
  who?: string;
}

const HOUR_MINUTES = 60;
const DAY_MS = 24 * 3600_000;

const minuteOf = (at: Date): number => Math.floor(at.getTime() / 60_000);

/** `counts` without the minutes before `from`. */
function since(counts: MinuteCount[], from: number): MinuteCount[] {
  return counts.filter(([m]) => m >= from);
}

function bump(counts: MinuteCount[], minute: number, n: number): MinuteCount[] {
  const kept = since(counts, minute - HOUR_MINUTES + 1);
  const last = kept.at(-1);
  if (last && last[0] === minute) return [...kept.slice(0, -1), [minute, last[1] + n]];
  return [...kept, [minute, n]];
}

function sum(counts: MinuteCount[], from: number): number {
  return since(counts, from).reduce((n, [, c]) => n + c, 0);
}

/** A new session's usage; `launches` are the item's earlier ones (kept a day), this one added. */
export function freshUsage(o: { now: Date; launches: readonly string[] }): SessionUsage {
  return {
    since: o.now.toISOString(),
    grants: 0,
    delivered: 0,
    deliveries: [],
    authors: {},
    launches: [...recentLaunches(o.launches, o.now), o.now.toISOString()],
    runs: 0,
  };
}

function recentLaunches(launches: readonly string[], now: Date): string[] {
  return launches.filter((l) => now.getTime() - Date.parse(l) < DAY_MS);
}

/** One more launch (a relaunch of the session's harness). */
export function countLaunch(u: SessionUsage, at: Date): SessionUsage {
  return { ...u, launches: [...recentLaunches(u.launches, at), at.toISOString()] };
}

/**
 * `n` deliveries at `at`; `authors` are the logins of the comments and reviews among them (one
 * entry each), what the loop guard counts.
 */
export function countDelivery(
  u: SessionUsage,
  o: { at: Date; n?: number; authors?: readonly string[]; author?: string },
): SessionUsage {
  const minute = minuteOf(o.at);
  const n = o.n ?? 1;
  const who = [...(o.authors ?? []), ...(o.author ? [o.author] : [])];
  const authors: Record<string, MinuteCount[]> = {};
  for (const [login, counts] of Object.entries(u.authors)) {
    const kept = since(counts, minute - HOUR_MINUTES + 1);
    if (kept.length > 0) authors[login] = kept;
  }
  for (const login of who) authors[login] = bump(authors[login] ?? [], minute, 1);
  return {
    ...u,
    delivered: u.delivered + n,
    deliveries: bump(u.deliveries, minute, n),
    authors,
  };
}

/** What one run reported, added to the sums. */
export function countRun(u: SessionUsage, use: RunUse): SessionUsage {
  const add = (a: number | undefined, b: number | undefined) => b === undefined ? a : (a ?? 0) + b;
  const next: SessionUsage = { ...u, runs: u.runs + 1 };
  const costUsd = add(u.costUsd, use.costUsd);
  const tokens = add(u.tokens, use.tokens);
  const turns = add(u.turns, use.turns);
  if (costUsd !== undefined) next.costUsd = Math.round(costUsd * 1e6) / 1e6;
  if (tokens !== undefined) next.tokens = tokens;
  if (turns !== undefined) next.turns = turns;
  return next;
}

/** One more window from `now`: the counts start again, the sums from what they are now. */
export function grant(u: SessionUsage, now: Date): SessionUsage {
  const base: RunUse = {};
  if (u.costUsd !== undefined) base.costUsd = u.costUsd;
  if (u.tokens !== undefined) base.tokens = u.tokens;
  if (u.turns !== undefined) base.turns = u.turns;
  return {
    ...u,
    since: now.toISOString(),
    grants: u.grants + 1,
    deliveries: [],
    authors: {},
    launches: [],
    base,
  };
}

/** What the window has used of each budget (`undefined`: not measured). */
export interface WindowUse {
  deliveriesPerHour: number;
  spawnsPerDay: number;
  sessionHours: number;
  costUsd?: number;
  tokens?: number;
  turns?: number;
}

/** The window's figures at `now`. */
export function windowUse(u: SessionUsage, now: Date): WindowUse {
  const minute = minuteOf(now);
  const out: WindowUse = {
    deliveriesPerHour: sum(u.deliveries, minute - HOUR_MINUTES + 1),
    spawnsPerDay: recentLaunches(u.launches, now).length,
    sessionHours: Math.max(0, (now.getTime() - Date.parse(u.since)) / 3600_000),
  };
  if (u.costUsd !== undefined) {
    out.costUsd = Math.round((u.costUsd - (u.base?.costUsd ?? 0)) * 1e6) / 1e6;
  }
  if (u.tokens !== undefined) out.tokens = u.tokens - (u.base?.tokens ?? 0);
  if (u.turns !== undefined) out.turns = u.turns - (u.base?.turns ?? 0);
  return out;
}

/** The budgets in the order they are checked (and shown). */
export const BUDGET_NAMES: readonly (keyof Budgets)[] = [
  "deliveriesPerHour",
  "spawnsPerDay",
  "sessionHours",
  "costUsd",
  "tokens",
  "turns",
];

/** What each budget reads as in a comment (the unit after the figures). */
export const BUDGET_UNITS: Readonly<Record<BudgetName, string>> = {
  deliveriesPerHour: "deliveries in the last hour",
  spawnsPerDay: "harness launches in the last 24 hours",
  sessionHours: "hours since the session's window opened",
  costUsd: "US dollars reported by the harness",
  tokens: "tokens reported by the harness",
  turns: "agent turns reported by the harness",
  "loop-guard": "comments and reviews by one author",
};

const limitOf = (v: number | undefined) => v !== undefined && v > 0 ? v : undefined;

/**
 * The first limit the window has reached or crossed before one more delivery (`next`: its
 * author, when it is a comment or review; `spawn`: it is a launch), or `undefined`.
 *
 * Counts (deliveries, launches, the loop guard) stop the delivery that would go past the limit:
 * `deliveriesPerHour: 60` delivers 60 an hour. Sums (cost, tokens, turns, hours) stop once
 * reached: a run that took the cost to the limit is the last.
 */
export function overBudget(
  u: SessionUsage,
  o: {
    budgets: Budgets;
    loopGuard?: LoopGuard;
    now: Date;
    next?: { author?: string; spawn?: boolean };
  },
): BudgetBreach | undefined {
  const w = windowUse(u, o.now);
  const b = o.budgets;
  const deliveries = limitOf(b.deliveriesPerHour);
  if (o.next && deliveries !== undefined && w.deliveriesPerHour + 1 > deliveries) {
    return { budget: "deliveriesPerHour", used: w.deliveriesPerHour, limit: deliveries };
  }
  const spawns = limitOf(b.spawnsPerDay);
  if (o.next?.spawn && spawns !== undefined && w.spawnsPerDay + 1 > spawns) {
    return { budget: "spawnsPerDay", used: w.spawnsPerDay, limit: spawns };
  }
  const guard = o.loopGuard;
  const who = o.next?.author;
  if (who && guard && guard.maxPerWindow > 0) {
    const from = minuteOf(o.now) - guard.windowMinutes + 1;
    const used = sum(u.authors[who] ?? [], Math.max(from, minuteOf(new Date(u.since))));
    if (used + 1 > guard.maxPerWindow) {
      return { budget: "loop-guard", used, limit: guard.maxPerWindow, who };
    }
  }
  const hours = limitOf(b.sessionHours);
  if (hours !== undefined && w.sessionHours >= hours) {
    return { budget: "sessionHours", used: Math.round(w.sessionHours * 100) / 100, limit: hours };
  }
  for (const name of ["costUsd", "tokens", "turns"] as const) {
    const limit = limitOf(b[name]);
    const used = w[name];
    if (limit !== undefined && used !== undefined && used >= limit) {
      return { budget: name, used, limit };
    }
  }
  return undefined;
}

/** The budgets set on cost, tokens or turns that the harness has not reported on. */
export function unmeasured(u: SessionUsage | undefined, budgets: Budgets): (keyof Budgets)[] {
  return (["costUsd", "tokens", "turns"] as const).filter((name) =>
    limitOf(budgets[name]) !== undefined && u?.[name] === undefined
  );
}

/** A usage record as read from disk: `undefined` when it is not one the-loop wrote. */
export function parseUsage(v: unknown): SessionUsage | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const u = v as SessionUsage;
  return typeof u.since === "string" && Array.isArray(u.deliveries) &&
      Array.isArray(u.launches) && typeof u.authors === "object" && u.authors !== null
    ? u
    : undefined;
}

/** One budget as `sessions list` shows it: `used` null = not measured, `limit` null = off. */
export interface BudgetFigure {
  used: number | null;
  limit: number | null;
}

/** A session's budgets as `sessions list` shows them (`usage` absent: nothing counted yet). */
export interface BudgetView {
  /** Deliveries since the spawn (all windows); null when the record counts none. */
  delivered: number | null;
  /** Windows granted after a pause. */
  grants: number;
  budgets: Record<keyof Budgets, BudgetFigure>;
  loopGuard: { maxPerWindow: number; windowMinutes: number } | null;
}

/** What `usage` used of each of `budgets` at `now` (for `sessions list`). */
export function budgetView(
  u: SessionUsage | undefined,
  o: { budgets: Budgets; loopGuard?: LoopGuard; now: Date },
): BudgetView {
  const w = u ? windowUse(u, o.now) : undefined;
  const budgets = Object.fromEntries(BUDGET_NAMES.map((name) => {
    const used = w?.[name];
    const shown = name === "sessionHours" && used !== undefined
      ? Math.round(used * 100) / 100
      : used;
    return [name, { used: shown ?? null, limit: limitOf(o.budgets[name]) ?? null }];
  })) as Record<keyof Budgets, BudgetFigure>;
  return {
    delivered: u?.delivered ?? null,
    grants: u?.grants ?? 0,
    budgets,
    loopGuard: o.loopGuard && o.loopGuard.maxPerWindow > 0 ? { ...o.loopGuard } : null,
  };
}

const SHORT: Readonly<Record<keyof Budgets, (n: number) => string>> = {
  deliveriesPerHour: (n) => `${n}`,
  spawnsPerDay: (n) => `${n}`,
  sessionHours: (n) => `${n}h`,
  costUsd: (n) => `$${n.toFixed(2)}`,
  tokens: (n) => n >= 10_000 ? `${Math.round(n / 1000)}k` : `${n}`,
  turns: (n) => `${n}`,
};

const LABEL: Readonly<Record<keyof Budgets, string>> = {
  deliveriesPerHour: "deliveries/h",
  spawnsPerDay: "launches/day",
  sessionHours: "time",
  costUsd: "cost",
  tokens: "tokens",
  turns: "turns",
};

/**
 * The view as one table cell: `deliveries/h 12/60, turns 8, cost $0.42/$5.00, tokens not
 * measured/100k` — a budget that is off and unmeasured is left out.
 */
export function budgetCell(v: BudgetView): string {
  const parts: string[] = [];
  for (const name of BUDGET_NAMES) {
    const { used, limit } = v.budgets[name];
    if (used === null && limit === null) continue;
    if (limit === null && (name === "spawnsPerDay" || name === "sessionHours")) continue;
    const f = SHORT[name];
    const shown = used === null ? "not measured" : f(used);
    parts.push(`${LABEL[name]} ${shown}${limit === null ? "" : `/${f(limit)}`}`);
  }
  return parts.join(", ");
}
