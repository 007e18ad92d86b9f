/**
 * Parked operations (`onError: suspend`): a hook that broke at a proceed point stops its turn
 * (`Suspended`, thrown by the call site), and the turn is parked here instead of refused:
 *
 * 1. the record is written (`<state.root>/suspended/<id>.json`: the point, the hook, why, the
 *    context as the hooks before it left it, secrets redacted, and the trigger — the event whose
 *    turn parked — as its first held delivery, with the points it had asked already);
 * 2. `hooks.suspended`, then ONE marked comment saying where, by which hook, why, and how to go
 *    on; the event is settled `suspended`.
 *
 * While the item is suspended, every later event of it is appended to the record (on disk
 * before it is answered) and settled `held`, in arrival order; other items are never held. A
 * close or a stop keyword discards the suspension (one `hooks.suspension_discarded` per held
 * delivery) and goes on as it would have; a resume keyword resumes it (`resumeSuspension`).
 *
 * A resume marks the record resumed and hands its held deliveries back to the dispatcher, in
 * order and ahead of the item's events that wait (`KeyedQueue`'s `first`), each as a turn that replays what it had asked (`Turn.replay`): the trigger goes on
 * from the hook that failed (`wait_for_resume`: after it; `wait_then_retry`: it is called once
 * more, and a second failure refuses), the others from the start. Each leaves the record when
 * its turn is done; the file goes with the last.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { PointName } from "../../lifecycle/sdk/mod.ts";
import type { Suspension } from "../../lifecycle/mod.ts";
import type {
  AskedPoint,
  HeldDelivery,
  SuspensionRecord,
  SuspensionStore,
} from "../suspensions/mod.ts";
import { parseControl } from "../keywords.ts";
import type { RoutedEvent } from "../types.ts";
import type { Handled, Turn } from "./turn.ts";
import { postComment } from "./comments.ts";
import { grantFor } from "./meters.ts";
import type { BudgetBreach } from "../../state/usage.ts";

/** What the engine says of a parked chain (`Suspension` of `lifecycle/mod.ts`). */
export type ParkedChain = Suspension;

/** Thrown by a call site whose chain parked: the turn stops there and is parked. */
export class Suspended extends Error {
  override name = "Suspended";
  readonly chain: ParkedChain;
  readonly context: Record<string, unknown>;
  constructor(chain: ParkedChain, context: Record<string, unknown>) {
    super(`${chain.hook} failed at ${chain.point}: the operation is suspended`);
    this.chain = chain;
    this.context = context;
  }
}

/** A budget's name as a comment says it. */
function budgetName(b: BudgetBreach): string {
  return b.budget === "loop-guard" ? "the loop guard" : `\`routing.budgets.${b.budget}\``;
}

/** What the point's name reads as in the comment. */
const OPERATION: Record<PointName, string> = {
  work_item_start: "the start of this work item",
  session_spawn: "the launch of its session",
  session_spawned: "its session's announcement",
  waiting_for_input: "a wait for input",
  input_received: "the delivery of an input",
  phase_changed: "a phase change",
  work_item_complete: "its completion",
};

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v));
}

/** The context as stored: JSON, with the declaration's secret values scrubbed. */
function storedContext(turn: Turn, ctx: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(ctx);
  let scrubbed = text;
  try {
    scrubbed = turn.deps.hooks.redact?.(text) ?? text;
    return JSON.parse(scrubbed);
  } catch {
    return clone(ctx);
  }
}

/** `event` as a held delivery (with the points its turn asked before it was held). */
export function heldOf(turn: Turn, event: RoutedEvent, asked?: AskedPoint[]): HeldDelivery {
  // what the points answered is stored scrubbed too (a replay then sees the scrubbed values)
  const stored = asked?.map((a) => ({ point: a.point, context: storedContext(turn, a.context) }));
  return {
    deliveryId: event.deliveryId,
    event,
    heldAt: turn.deps.now().toISOString(),
    ...(stored && stored.length > 0 ? { asked: stored } : {}),
  };
}

/**
 * What a hook's failure says, for a comment on the work item: without the engine's
 * `hook "NAME" (TARGET): ` prefix (the target is a local path, a URL or an argv), its first line.
 */
export function publicError(error: string, hook: string): string {
  const prefix = `hook ${JSON.stringify(hook)}`;
  let text = error.split("\n")[0];
  if (text.startsWith(prefix)) {
    text = text.slice(prefix.length);
    // ` (TARGET): ` — a target may hold parentheses of its own: up to the first `): `
    const target = /^ \(.*?\): /.exec(text);
    text = target ? text.slice(target[0].length) : text.replace(/^:\s*/, "");
  }
  // a load failure names the module's file first: `PATH:LINE:COL: what`
  text = text.replace(/^\S+:\d+:\d+:\s*/, "");
  return text.trim() || "it failed";
}

/** The suspension comment: where, which hook, why, and the two ways on. */
function suspendedText(r: SuspensionRecord, keyword: string): string {
  const retry = r.mode === "wait_then_retry"
    ? ` On resume, \`${r.hook}\` is run once more; if it fails again, the operation is refused.`
    : ` On resume, the operation goes on without \`${r.hook}\` (its decisions stay the defaults).`;
  return [
    `⏸️ **the-loop** suspended ${OPERATION[r.point]} (\`${r.point}\`): the hook \`${r.hook}\` ` +
    `failed: ${publicError(r.error, r.hook)}`,
    `Later events on this item are held, in order, until it goes on.${retry}`,
    `To go on: an authorized person comments \`${keyword}\`, or the operator runs ` +
    `\`the-loop hooks resume ${r.id}\`. A stop keyword (or \`the-loop sessions stop ${r.workItem}\`) ` +
    "discards it and the held events.",
  ].join("\n\n");
}

/**
 * Parks the turn whose call site threw `s` (the trigger, with the points `asked` before it):
 * the record, `hooks.suspended`, the comment. Resolves to the trigger's answer (`suspended`);
 * a record that cannot be written fails the delivery (retried), never answers it.
 */
export async function park(
  turn: Turn,
  s: Suspended,
): Promise<Handled> {
  const store = turn.deps.suspensions;
  if (!store) return { outcome: turn.failed("dispatch", s) };
  const c = s.chain;
  const { point, hook, mode, declared, error, attempts } = c;
  const chain = { point, hook, mode, declared, error, attempts };
  // a replay that parks again (or an event after a resume whose replays are still finishing)
  // keeps the deliveries the item's record still holds: one record per item. One already
  // delivered is settled `duplicate-delivery` when it comes round again (the session noted it).
  const previous = await store.ofItem(turn.ref).catch(() => undefined);
  const trigger = heldOf(turn, turn.event, turn.asked);
  const rest = (previous?.held ?? []).filter((h) => h.deliveryId !== trigger.deliveryId);
  const record: SuspensionRecord = {
    version: 1,
    id: store.newId(turn.ref),
    workItem: turn.ref,
    ...chain,
    since: turn.deps.now().toISOString(),
    ...(c.timeoutMinutes !== undefined ? { timeoutMinutes: c.timeoutMinutes } : {}),
    context: storedContext(turn, s.context),
    held: [trigger, ...rest],
  };
  try {
    await store.put(record);
    if (previous && previous.id !== record.id) await store.remove(previous.id);
  } catch (err) {
    return {
      outcome: turn.failed("dispatch", new Error(`writing the suspension: ${messageOf(err)}`)),
    };
  }
  // the start is asked again on resume (once per arming), so its mark goes with the park
  if (c.point === "work_item_start") await turn.deps.startMarks.clear(turn.ref).catch(() => {});
  turn.emit("hooks.suspended", { id: record.id, ...chain, held: record.held.length }, "warning");
  const keyword = turn.config.control.keywords.resume;
  const url = await postComment(turn, "refusal", suspendedText(record, keyword));
  if (url !== undefined) {
    await store.put({ ...record, commentUrl: url || null }).catch(() => {});
  }
  return turn.settled("suspended", false);
}

/**
 * At the top of a turn: when its item is suspended, the event is held (or, a close or a stop,
 * discards the suspension; a resume keyword resumes it). Undefined: the turn goes on.
 */
export async function whileSuspended(turn: Turn): Promise<Handled | undefined> {
  const store = turn.deps.suspensions;
  if (!store) return undefined;
  let record: SuspensionRecord | undefined;
  try {
    record = await store.ofItem(turn.ref);
  } catch (err) {
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
    return undefined;
  }
  if (!record) return undefined;
  // resumed: its held deliveries are under way, queued before anything that came after; resumed
  // elsewhere (`hooks resume`) and not queued here yet: this event is held behind them, and they go
  if (record.resumed) {
    if (turn.replay || turn.deps.replaying(record.id)) return undefined;
    const held = record.held.some((h) => h.deliveryId === turn.event.deliveryId)
      ? { outcome: { status: "settled" as const, reason: "held" as const } }
      : await hold(turn, record, turn.event);
    const now = await turn.deps.suspensions!.get(record.id).catch(() => undefined);
    if (now?.resumed) await resumeSuspension(turn, now, { by: now.resumed.by });
    return held;
  }
  const { event } = turn;
  if (event.kind === "close") {
    await discard(turn, record, "close");
    return undefined;
  }
  const command = isText(event) ? parseControl(event.text, turn.config.control).command : undefined;
  if (command === "stop") {
    await discard(turn, record, "stop");
    return undefined;
  }
  if (command === "resume" && event.actor) {
    await resumeSuspension(turn, record, { by: event.actor });
    // a paused session is resumed by the same keyword: the turn goes on to apply it
    const live = await turn.deps.sessions.live(turn.ref).catch(() => undefined);
    return live?.status === "paused" ? undefined : turn.settled("command", true);
  }
  if (record.held.some((h) => h.deliveryId === event.deliveryId)) return turn.settled("held");
  // the poller's nudge that an armed item has no session says nothing new: the parked operation
  // is what spawns it on resume, so a nudge (one per cycle) is not kept
  if (event.kind === "presence") return turn.settled("held");
  return await hold(turn, record, event);
}

function isText(event: RoutedEvent): boolean {
  return event.kind === "comment" || event.kind === "review" || event.kind === "review_comment";
}

/** Appends `event` to the record's held deliveries, durably, then settles it `held`. */
async function hold(turn: Turn, record: SuspensionRecord, event: RoutedEvent): Promise<Handled> {
  const store = turn.deps.suspensions!;
  let next: SuspensionRecord;
  try {
    // read again under the item's lock: a batch held behind a budget's pause appends too
    next = await store.withItem(turn.ref, async () => {
      const now = (await store.get(record.id)) ?? record;
      const held = now.held.some((h) => h.deliveryId === event.deliveryId)
        ? now.held
        : [...now.held, heldOf(turn, event)];
      const next = { ...now, held };
      await store.put(next);
      return next;
    });
  } catch (err) {
    return { outcome: turn.failed("dispatch", new Error(`holding the event: ${messageOf(err)}`)) };
  }
  turn.emit("dispatch.held", {
    id: record.id,
    kind: event.kind,
    gh_event: event.ghEvent,
    position: next.held.length,
  });
  return turn.settled("held");
}

/**
 * Holds the other deliveries of a batch whose relaunch parked (the record was just written by
 * {@linkcode park}): each is appended in order and settled `held`.
 */
export async function holdToo(turn: Turn, event: RoutedEvent): Promise<Handled> {
  const record = await turn.deps.suspensions?.ofItem(turn.ref).catch(() => undefined);
  if (!record) return { outcome: turn.failed("dispatch", new Error("the suspension is gone")) };
  if (record.held.some((h) => h.deliveryId === event.deliveryId)) return turn.settled("held");
  return await hold(turn, record, event);
}

/** Discards `record` and its held deliveries: one event per delivery, one for the record. */
export async function discard(
  turn: Turn,
  record: SuspensionRecord,
  reason: "stop" | "close",
): Promise<void> {
  try {
    await turn.deps.suspensions!.remove(record.id);
  } catch (err) {
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
    return;
  }
  discardedEvents(turn.deps.events, record, reason);
}

/** The events of a discarded suspension (also written by `sessions stop`). */
export function discardedEvents(
  events: { emit(type: string, fields: Record<string, unknown>, o?: { level?: "warning" }): void },
  record: SuspensionRecord,
  reason: "stop" | "close",
): void {
  const base = {
    work_item: record.workItem,
    id: record.id,
    point: record.point,
    hook: record.hook,
  };
  try {
    for (const h of record.held) {
      events.emit("hooks.suspension_discarded", {
        ...base,
        reason,
        held_delivery_id: h.deliveryId,
      }, { level: "warning" });
    }
    events.emit("hooks.suspension_discarded", { ...base, reason, held_delivery_id: null });
  } catch { /* the log must not decide it */ }
}

/**
 * Resumes `record` (from a keyword's turn, or the daemon told by `hooks resume`): marked
 * resumed on disk, `hooks.resumed`, and its held deliveries handed back in order.
 */
export async function resumeSuspension(
  turn: Turn,
  record: SuspensionRecord,
  o: { by: string },
): Promise<void> {
  if (turn.deps.replaying(record.id)) return;
  const resumed: SuspensionRecord = record.resumed
    ? record
    : { ...record, resumed: { at: turn.deps.now().toISOString(), by: o.by } };
  if (!record.resumed) {
    try {
      await turn.deps.suspensions!.put(resumed);
    } catch (err) {
      turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning");
      return;
    }
  }
  // a budget's pause: one more window, and the session active again, before the held go in
  if (record.budget) {
    await grantFor(turn.deps, turn.ref).catch((err) =>
      turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning")
    );
  }
  turn.emit("hooks.resumed", {
    id: record.id,
    point: record.point,
    hook: record.hook,
    mode: record.mode,
    by: o.by,
    held: record.held.length,
  });
  turn.deps.replay(resumed);
  const n = record.held.length;
  const follow = n === 0
    ? "nothing was held"
    : n === 1
    ? "the held event follows"
    : `the ${n} held events follow, in order`;
  await postComment(
    turn,
    "refusal",
    record.budget
      ? `▶️ **the-loop** resumed this item's session (paused by ${budgetName(record.budget)}), ` +
        `as ${o.by} asked, with one more window; ${follow}.`
      : `▶️ **the-loop** resumed ${OPERATION[record.point]} (suspended by \`${record.hook}\`), ` +
        `as ${o.by} asked; ${follow}.`,
  );
}

/** What a replayed turn carries: the record, and for its trigger where the chain goes on. */
export interface Replay {
  id: string;
  /** Points asked before the park: answered from here, in order, not asked again. */
  asked: AskedPoint[];
  /** The trigger's parked point: its chain goes on from the failing hook. */
  resume?: {
    point: PointName;
    hook: string;
    rerun: boolean;
    context: Record<string, unknown>;
  };
}

/** The replays of a resumed record's held deliveries, in order. */
export function replaysOf(record: SuspensionRecord): { event: RoutedEvent; replay: Replay }[] {
  return record.held.map((h, i) => ({
    event: h.event,
    replay: {
      id: record.id,
      asked: h.asked ?? [],
      // a budget's pause parked no chain: every held delivery goes on from the start
      ...(i === 0 && !record.budget
        ? {
          resume: {
            point: record.point,
            hook: record.hook,
            rerun: record.mode === "wait_then_retry",
            context: record.context,
          },
        }
        : {}),
    },
  }));
}

/** A replayed delivery's turn is done: it leaves its record; the file goes with the last. */
export async function replayed(
  store: SuspensionStore,
  id: string,
  deliveryId: string,
): Promise<void> {
  const record = await store.get(id);
  if (!record?.resumed) return; // parked again (a new record), or discarded
  const held = record.held.filter((h) => h.deliveryId !== deliveryId);
  if (held.length === 0) await store.remove(id);
  else await store.put({ ...record, held });
}

/** Records marked resumed (by `hooks resume` with no daemon running, or a crash mid-replay). */
export async function resumedRecords(store: SuspensionStore): Promise<SuspensionRecord[]> {
  return (await store.list()).filter((r) => r.resumed !== undefined);
}
