/**
 * The status page's snapshot, a pure core: what the state root holds (read by `read.ts` into a
 * {@linkcode SnapshotInput}) and a clock in, the page's {@linkcode UiState} out — attention first
 * (questions waiting, gates, suspensions, budget pauses, dead sessions, recent failures), then a
 * row per work item, the hook telemetry and the health strip — and one item's
 * {@linkcode ItemView}. No file, process or clock is touched here.
 *
 * | health figure | `at`                           | stale when                                          |
 * | ------------- | ------------------------------ | --------------------------------------------------- |
 * | poller        | its last cycle's end           | not running, or no cycle for 2 intervals (+ 60 s)  |
 * | webhook       | its last `webhook.received`    | the receiver is not running                         |
 * | rate limit    | the `poll.cycle` that saw it   | older than 2 poll intervals (+ 60 s), or none seen  |
 * | queue, uptime | the snapshot                   | older than 60 s (the page's own clock decides)      |
 *
 * @module
 */
import type { EventRecord } from "../events/mod.ts";
import type { CircuitRecord } from "../lifecycle/mod.ts";
import type { LoopSet, Position } from "../loops/mod.ts";
import type { SuspensionRecord } from "../dispatch/mod.ts";
import type { SessionRecord } from "../state/registry.ts";
import { BUDGET_NAMES, type Budgets, windowUse } from "../state/usage.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { hookDecisions, hookStats } from "./telemetry.ts";
import type {
  BudgetPauseView,
  DeadSessionView,
  FailureView,
  Freshness,
  GateView,
  HealthView,
  ItemRow,
  ItemView,
  Liveness,
  QuestionView,
  SessionView,
  SuspensionView,
  TerminalMode,
  TrailEvent,
  UiState,
} from "./types.ts";

/** What `poll-status.json` holds that the page shows (written by `poll/status.ts`). */
export interface PollStatusFacts {
  startedAt: string;
  lastCycleAt: string | null;
  intervalSeconds: number;
}

/** What `gh-webhook-status.json` holds that the page shows (written by `webhook/status.ts`). */
export interface WebhookStatusFacts {
  startedAt: string;
  url: string;
}

/** An event of the log's tail, with the byte offset just past its line. */
export interface TailRecord {
  offset: number;
  record: EventRecord;
}

/** Everything the snapshot is made from. */
export interface SnapshotInput {
  stateRoot: string;
  sessions: readonly SessionRecord[];
  positions: readonly Position[];
  suspensions: readonly SuspensionRecord[];
  /** The log's last records, oldest first. */
  events: readonly TailRecord[];
  eventLog: { path: string; end: number };
  poll: { running: boolean; status: PollStatusFacts | null };
  webhook: { running: boolean; status: WebhookStatusFacts | null };
  /** tmux session name → whether a pane of it is alive; null: tmux could not be asked. */
  panes: ReadonlyMap<string, boolean> | null;
  circuits: ReadonlyMap<string, CircuitRecord>;
  /** The declared hooks' names. */
  hooks: readonly string[];
  inboxBytes: number;
  /** The loops in force (a gate's outcomes); undefined when they do not read. */
  loops: LoopSet | undefined;
  budgets: Budgets;
  terminal: TerminalMode;
  version: string;
  /** When the server started (the uptime). */
  startedAt: Date;
}

/** How many failures the attention list shows. */
export const RECENT_FAILURES = 20;
/** How many events an item's trail shows. */
export const TRAIL_MAX = 200;
/** Seconds after which a figure taken at the snapshot is stale. */
const SNAPSHOT_STALE_S = 60;

const iso = (d: Date) => d.toISOString();
const ageOf = (since: string | null, now: Date): number | null => {
  const t = since === null ? NaN : Date.parse(since);
  return Number.isNaN(t) ? null : Math.max(0, Math.round((now.getTime() - t) / 1000));
};

/** The item's page on GitHub (a pull request's `issues/N` URL redirects to it). */
export function githubUrl(ref: string): string {
  const item = parseWorkItem(ref);
  if (!item) return "";
  const host = item.host === "github.com" || !item.host ? "github.com" : item.host;
  return `https://${host}/${item.owner}/${item.repo}/issues/${item.number}`;
}

const str = (v: unknown): string => typeof v === "string" ? v : "";

/** A failure record's one line: its error, reason or message field, else its type. */
function messageOf(r: EventRecord): string {
  for (const k of ["error", "reason", "message", "last_error", "detail"]) {
    if (typeof r[k] === "string" && r[k]) return r[k] as string;
  }
  return r.event;
}

/** Whether a record is a failure worth a person's attention. */
function isFailure(r: EventRecord): boolean {
  return r.level === "error" || /\.(failed|timed_out)$/.test(r.event);
}

function livenessOf(s: SessionRecord, panes: SnapshotInput["panes"]): Liveness {
  if (s.status === "closed") return "dead";
  if (!s.tmuxTarget) return "headless";
  if (panes === null) return "unknown";
  return panes.get(s.tmuxTarget) === true ? "alive" : "dead";
}

function sessionView(s: SessionRecord, panes: SnapshotInput["panes"]): SessionView {
  return {
    status: s.status,
    harness: s.harness,
    harnessSessionId: s.harnessSessionId,
    tmuxTarget: s.tmuxTarget,
    liveness: livenessOf(s, panes),
    createdAt: s.createdAt,
    lastEventAt: s.lastEventAt,
    awaitingInput: s.awaitingInput !== undefined,
  };
}

/** The newest of some ISO times (null when none). */
function newest(...times: (string | null | undefined)[]): string | null {
  let best: string | null = null;
  for (const t of times) if (t && (best === null || t > best)) best = t;
  return best;
}

/** The facts of one work item, gathered from every store. */
interface ItemFacts {
  ref: string;
  session?: SessionRecord;
  position?: Position;
  suspension?: SuspensionRecord;
  title: string;
  lastEventTs?: string;
}

function gatherItems(input: SnapshotInput): Map<string, ItemFacts> {
  const items = new Map<string, ItemFacts>();
  const facts = (ref: string) => {
    let f = items.get(ref);
    if (!f) items.set(ref, f = { ref, title: "" });
    return f;
  };
  // the newest session of an item is its own (an older closed one is history)
  for (const s of input.sessions) {
    const f = facts(s.workItem.ref);
    if (!f.session || s.status !== "closed" || f.session.createdAt < s.createdAt) f.session = s;
  }
  for (const p of input.positions) facts(p.workItem).position = p;
  for (const r of input.suspensions) facts(r.workItem).suspension = r;
  for (const { record } of input.events) {
    const ref = str(record.work_item);
    if (!items.has(ref)) continue;
    const f = items.get(ref)!;
    f.lastEventTs = record.ts;
    if (record.event === "session.spawned" && str(record.title)) f.title = str(record.title);
  }
  return items;
}

function usageOf(s: SessionRecord | undefined, budgets: Budgets, now: Date) {
  if (!s?.usage || s.status === "closed") return [];
  const use = windowUse(s.usage, now);
  return BUDGET_NAMES
    .filter((name) => (budgets[name] ?? 0) > 0)
    .map((name) => ({
      budget: name,
      used: use[name] === undefined ? null : Math.round(use[name]! * 1000) / 1000,
      limit: budgets[name]!,
    }));
}

function rowOf(f: ItemFacts, input: SnapshotInput, now: Date): ItemRow {
  const s = f.session;
  const p = f.position;
  return {
    ref: f.ref,
    url: s?.url || githubUrl(f.ref),
    title: f.title,
    loop: p?.loop ?? null,
    node: p?.node ?? null,
    phase: p?.phase ?? null,
    loopStatus: p?.status ?? null,
    session: s ? sessionView(s, input.panes) : null,
    lastActivity: newest(s?.lastEventAt, p?.updatedAt, f.lastEventTs),
    usage: usageOf(s, input.budgets, now),
    suspended: f.suspension !== undefined && f.suspension.resumed === undefined,
  };
}

function questionOf(s: SessionRecord | undefined, now: Date): QuestionView | null {
  const q = s && s.status !== "closed" ? s.awaitingInput : undefined;
  if (!s || !q) return null;
  return {
    ref: s.workItem.ref,
    url: s.url || githubUrl(s.workItem.ref),
    question: q.question,
    summary: q.summary,
    since: q.since,
    ageSeconds: ageOf(q.since, now) ?? 0,
    commentUrl: q.commentUrl,
  };
}

function gateOf(p: Position | undefined, loops: LoopSet | undefined, now: Date): GateView | null {
  if (!p || p.status !== "active") return null;
  const node = loops?.get(p.loop)?.nodes[p.node];
  // without the loops, a position waiting since some time is at a human node
  const human = node ? node.actor === "human" : p.waitingSince !== null;
  if (!human) return null;
  return {
    ref: p.workItem,
    url: githubUrl(p.workItem),
    loop: p.loop,
    node: p.node,
    phase: p.phase,
    since: p.waitingSince,
    ageSeconds: ageOf(p.waitingSince, now),
    outcomes: node ? Object.keys(node.next) : [],
  };
}

function suspensionOf(r: SuspensionRecord | undefined): SuspensionView | null {
  if (!r || r.budget) return null;
  return {
    id: r.id,
    ref: r.workItem,
    url: r.commentUrl || githubUrl(r.workItem),
    point: r.point,
    hook: r.hook,
    error: r.error,
    mode: r.mode,
    since: r.since,
    held: r.held.length,
    resumed: r.resumed ?? null,
    escalatedAt: r.escalatedAt ?? null,
  };
}

function budgetPauseOf(r: SuspensionRecord | undefined): BudgetPauseView | null {
  if (!r?.budget) return null;
  return {
    id: r.id,
    ref: r.workItem,
    url: r.commentUrl || githubUrl(r.workItem),
    budget: r.budget.budget,
    used: r.budget.used,
    limit: r.budget.limit,
    who: r.budget.who ?? null,
    since: r.since,
    resumed: r.resumed ?? null,
  };
}

function deadOf(
  s: SessionRecord | undefined,
  panes: SnapshotInput["panes"],
): DeadSessionView | null {
  if (!s || s.status === "closed" || livenessOf(s, panes) !== "dead") return null;
  return {
    ref: s.workItem.ref,
    url: s.url || githubUrl(s.workItem.ref),
    harness: s.harness,
    status: s.status,
    tmuxTarget: s.tmuxTarget,
    lastEventAt: s.lastEventAt,
    why: `its tmux session ${s.tmuxTarget} has no live pane`,
  };
}

function failures(events: readonly TailRecord[]): FailureView[] {
  const out: FailureView[] = [];
  for (let i = events.length - 1; i >= 0 && out.length < RECENT_FAILURES; i--) {
    const r = events[i].record;
    if (!isFailure(r)) continue;
    out.push({
      ts: r.ts,
      event: r.event,
      level: r.level,
      ref: str(r.work_item) || null,
      message: messageOf(r),
    });
  }
  return out;
}

function fresh(
  at: string | null,
  staleAfterSeconds: number,
  now: Date,
  down = false,
): Freshness {
  const age = ageOf(at, now);
  return { at, staleAfterSeconds, stale: down || age === null || age > staleAfterSeconds };
}

function health(input: SnapshotInput, now: Date): HealthView {
  const status = input.poll.status;
  const interval = status?.intervalSeconds ?? null;
  const pollStale = (interval ?? 60) * 2 + 60;
  const lastCycleAt = status?.lastCycleAt ?? null;
  const since = ageOf(lastCycleAt, now);
  let lastDelivery: string | null = null;
  let rate: { remaining: number; at: string } | null = null;
  for (const { record: r } of input.events) {
    if (r.event === "webhook.received") lastDelivery = r.ts;
    if (r.event === "poll.cycle" && typeof r.rate_limit_remaining === "number") {
      rate = { remaining: r.rate_limit_remaining, at: r.ts };
    }
  }
  const held = input.suspensions.reduce((n, r) => n + (r.resumed ? 0 : r.held.length), 0);
  const inFlight = input.sessions.reduce(
    (n, s) => n + (s.status === "closed" ? 0 : s.inFlight?.length ?? 0),
    0,
  );
  return {
    poller: {
      ...fresh(lastCycleAt, pollStale, now, !input.poll.running),
      running: input.poll.running,
      lastCycleAt,
      intervalSeconds: interval,
      lagSeconds: since === null ? null : Math.max(0, since - (interval ?? 0)),
    },
    webhook: {
      // a delivery is news as long as the receiver is up: no age bound
      at: lastDelivery ?? input.webhook.status?.startedAt ?? null,
      staleAfterSeconds: null,
      stale: !input.webhook.running,
      running: input.webhook.running,
      lastDeliveryAt: lastDelivery,
    },
    rateLimit: { ...fresh(rate?.at ?? null, pollStale, now), remaining: rate?.remaining ?? null },
    queue: {
      ...fresh(iso(now), SNAPSHOT_STALE_S, now),
      held,
      inFlight,
      inboxBytes: input.inboxBytes,
    },
    version: input.version,
    uptime: {
      ...fresh(iso(now), SNAPSHOT_STALE_S, now),
      startedAt: iso(input.startedAt),
      seconds: Math.max(0, Math.round((now.getTime() - input.startedAt.getTime()) / 1000)),
    },
  };
}

const bySince = <T extends { since: string | null }>(a: T, b: T) =>
  (a.since ?? "").localeCompare(b.since ?? "");

/** The page's state at `now`. */
export function snapshot(input: SnapshotInput, o: { now: Date }): UiState {
  const { now } = o;
  const items = gatherItems(input);
  const facts = [...items.values()];
  const some = <T>(f: (x: ItemFacts) => T | null): T[] =>
    facts.map(f).filter((x): x is T => x !== null);
  const rows = facts.map((f) => rowOf(f, input, now))
    .sort((a, b) =>
      (b.lastActivity ?? "").localeCompare(a.lastActivity ?? "") ||
      a.ref.localeCompare(b.ref)
    );
  return {
    version: 1,
    generatedAt: iso(now),
    stateRoot: input.stateRoot,
    terminal: input.terminal,
    attention: {
      questions: some((f) => questionOf(f.session, now)).sort(bySince),
      gates: some((f) => gateOf(f.position, input.loops, now)).sort(bySince),
      suspensions: some((f) => suspensionOf(f.suspension)).sort(bySince),
      budgetPauses: some((f) => budgetPauseOf(f.suspension)).sort(bySince),
      deadSessions: some((f) => deadOf(f.session, input.panes)),
      failures: failures(input.events),
    },
    items: rows,
    hooks: hookStats(input.events.map((e) => e.record), {
      circuits: input.circuits,
      now,
      hooks: input.hooks,
    }),
    health: health(input, now),
    events: { ...input.eventLog },
  };
}

const COMMON = new Set(["ts", "source", "event", "level", "pid", "work_item"]);

function trailOf(events: readonly TailRecord[], ref: string): TrailEvent[] {
  return events
    .filter((e) => e.record.work_item === ref)
    .slice(-TRAIL_MAX)
    .map(({ offset, record: r }) => ({
      offset,
      ts: r.ts,
      event: r.event,
      level: r.level,
      source: r.source,
      fields: Object.fromEntries(Object.entries(r).filter(([k]) => !COMMON.has(k))),
    }));
}

/** One item's page at `now`; undefined when no store knows the item. */
export function itemView(
  input: SnapshotInput,
  ref: string,
  o: { now: Date },
): ItemView | undefined {
  const f = gatherItems(input).get(ref);
  if (!f) return undefined;
  const { now } = o;
  const row = rowOf(f, input, now);
  const live = f.session && f.session.status !== "closed" && f.session.tmuxTarget !== "";
  const available = input.terminal !== "off" && live === true &&
    row.session?.liveness !== "dead";
  return {
    version: 1,
    generatedAt: iso(now),
    item: row,
    question: questionOf(f.session, now),
    gate: gateOf(f.position, input.loops, now),
    suspension: suspensionOf(f.suspension),
    budgetPause: budgetPauseOf(f.suspension),
    history: (f.position?.history ?? []).map((t) => ({ ...t })),
    trail: trailOf(input.events, ref),
    hooks: hookDecisions(input.events.map((e) => e.record), ref),
    terminal: {
      mode: input.terminal,
      available,
      path: available ? `/api/v1/items/${encodeURIComponent(ref)}/terminal` : null,
    },
  };
}
