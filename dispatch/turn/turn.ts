/**
 * What every step of a dispatch shares: the dispatcher's resolved options ({@linkcode Deps}) and
 * one event's turn ({@linkcode Turn}): its config snapshot, its events, its reactions and the
 * deadline every harness call runs under. This file imports no step: what a turn needs of the
 * steps (the reactions, the session's gathered deliveries) comes through {@linkcode Deps}, typed
 * here by what the turn asks of it.
 *
 * @module
 */
import type { RoutingConfig } from "../../config/mod.ts";
import { messageOf } from "../../errors.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { SessionDispatcherOptions, StartMarks } from "../seams.ts";
import type { Meters } from "./meters.ts";
import type { PromptTemplates } from "../prompts.ts";
import type { BurstPart } from "./burst.ts";
import type {
  DispatchFailure,
  DispatchOutcome,
  DroppedReason,
  FailureCause,
  FailureStage,
  RoutedEvent,
  SettledReason,
} from "../types.ts";
import { type Lane, type Slots, withDeadline } from "../../async/mod.ts";
import type { PointName } from "../../lifecycle/sdk/mod.ts";
import type { AskedPoint, SuspensionRecord, SuspensionStore } from "../suspensions/mod.ts";

/** What a replayed turn carries (`Replay` of `suspend.ts`, typed here by what the turn reads). */
export interface TurnReplay {
  id: string;
  asked: AskedPoint[];
  resume?: { point: PointName; hook: string; rerun: boolean; context: Record<string, unknown> };
}

/** The options, defaults filled. */
export interface Deps extends Omit<SessionDispatcherOptions, "templates" | "startMarks"> {
  templates: () => PromptTemplates;
  startMarks: StartMarks;
  now: () => Date;
  uuid: () => string;
  /** The deliveries into live sessions, gathered per session (`Deliveries` of `batch.ts`). */
  deliveries: DeliveryQueue;
  /** Adds the reaction of `state` to the turn's subject; never throws (`react` of `reactions.ts`). */
  react: (turn: Turn, state: ReactionState) => Promise<void>;
  /** Where reactions wait for the dispatcher to be idle (`async/lane.ts`). */
  reactions: Lane;
  /** Relaunches of a harness found dead at delivery: at most `maxConcurrentDispatches` at once. */
  launches: Slots;
  /** The parked operations (`<state.root>/suspended`); absent: a failing hook never parks. */
  suspensions?: SuspensionStore;
  /** Hands a resumed record's held deliveries back to the dispatcher, in order. */
  replay: (record: SuspensionRecord) => void;
  /** Whether this process queued `id`'s held deliveries already. */
  replaying: (id: string) => boolean;
  /** Each session's usage against its budgets, as this process counted it (`_budget.ts`). */
  meters: Meters;
}

/** The reactions a turn gives: on pickup, then done or failed. */
export type ReactionState = "started" | "completed" | "error";

/** One event's delivery into its live session, as a step hands it over. */
export interface Delivery {
  turn: Turn;
  /** The live session as the turn saw it. */
  live: SessionRecord;
  /** The event as the `input_received` hooks left it. */
  event: RoutedEvent;
  /** Its prompt, as it goes when alone in its batch. */
  prompt: string;
  /** An event's part of a burst (`burst.ts`); absent for other prompts (an answer, an assignment). */
  part?: BurstPart;
}

/** What the steps ask of the gathered deliveries (`Deliveries` of `batch.ts`). */
export interface DeliveryQueue {
  /** Queues a delivery; resolves with its outcome once its batch was delivered (or failed). */
  add(delivery: Delivery): Promise<Handled>;
  /** Whether a delivery of `deliveryId` into `ref`'s session waits, is under way or waits for its note. */
  has(ref: string, deliveryId: string): boolean;
  /** Resolves once nothing waits, is under way or waits for its note for `ref`. */
  drain(ref: string): Promise<void>;
  /** Deliveries under way and waiting, over all sessions. */
  readonly size: { running: number; waiting: number };
}

/** A step's answer: the outcome, and whether it counts as done for the reaction (default: delivered). */
export interface Handled {
  outcome: DispatchOutcome;
  ok?: boolean;
}

/** A step whose outcome comes later: a delivery handed to its session's batch. */
export interface Later {
  later: Promise<Handled>;
}

/** What a turn's step answers: its outcome now, or later. */
export type Answer = Handled | Later;

/** An event whose dispatch was aborted before its turn (or its batch) began: handed back. */
export function abortedWaiting(): DispatchFailure {
  return { status: "failed", stage: "queue", cause: "aborted", message: "aborted", retry: true };
}

/** A harness call that outlived `dispatchTimeoutSeconds`. */
export class DispatchTimeout extends Error {
  override name = "DispatchTimeout";
  constructor(what: string, seconds: number) {
    super(
      `${what} did not finish within dispatchTimeoutSeconds (${seconds} s); ` +
        "it is retried with the next delivery (raise routing.dispatchTimeoutSeconds if it needs longer)",
    );
  }
}

/** One event's turn in its work item's queue. */
export class Turn {
  readonly deps: Deps;
  readonly event: RoutedEvent;
  readonly signal?: AbortSignal;
  /** The routing settings as they were when the turn began. */
  readonly config: RoutingConfig;
  /**
   * This delivery id was marked in flight on the session and never noted delivered: a crash may
   * have pasted it already, so its prompt says it may repeat (`REPEAT_LINE` of `burst.ts`).
   */
  repeat = false;
  /** The points this turn asked, with what they answered (kept with the turn if it parks). */
  readonly asked: AskedPoint[] = [];
  /** Set on a held delivery handed back after its item's suspension was resumed. */
  readonly replay?: TurnReplay;
  #replayAt = 0;
  #resumed = false;
  #picked = false;
  #reactions: Promise<void> = Promise.resolve();

  constructor(deps: Deps, event: RoutedEvent, signal?: AbortSignal, replay?: TurnReplay) {
    this.deps = deps;
    this.event = event;
    this.signal = signal;
    this.config = deps.config();
    if (replay) this.replay = replay;
  }

  /**
   * A replayed turn's next point, when it is `point`: what it answered before the park (it is
   * not asked again). Undefined once the replay's points are used up or the turn took another way.
   */
  replayedAsk(point: PointName): Record<string, unknown> | undefined {
    const next = this.replay?.asked[this.#replayAt];
    if (!next || next.point !== point) {
      if (this.replay) this.#replayAt = this.replay.asked.length; // diverged: ask afresh
      return undefined;
    }
    this.#replayAt++;
    return next.context;
  }

  /** The parked point's resume (once), when this turn reaches `point`. */
  resumeAt(point: PointName): TurnReplay["resume"] | undefined {
    const r = this.replay?.resume;
    if (!r || this.#resumed || r.point !== point) return undefined;
    this.#resumed = true;
    return r;
  }

  get ref(): string {
    return this.event.workItem.ref;
  }

  /**
   * Hands `prompt` to `live`'s gathered deliveries as `event` (default: the turn's), behind the
   * session's earlier ones; its outcome once its batch went in. No reaction: the caller picks up.
   */
  queue(
    live: SessionRecord,
    prompt: string,
    event: RoutedEvent = this.event,
    part?: BurstPart,
  ): Later {
    const delivery: Delivery = { turn: this, live, event, prompt, ...(part ? { part } : {}) };
    return { later: this.deps.deliveries.add(delivery) };
  }

  /** Picks the event up: the `started` reaction (once, in the reactions' lane), not waited for. */
  pickup(): void {
    if (this.#picked) return;
    this.#picked = true;
    this.#reactions = this.deps.reactions.run(() => this.deps.react(this, "started"));
  }

  /** After the turn: `completed` or `error` when it was picked up (after `started`). */
  async finish(ok: boolean): Promise<void> {
    if (!this.#picked) return;
    const state = ok ? "completed" : "error";
    this.#reactions = this.#reactions.then(() =>
      this.deps.reactions.run(() => this.deps.react(this, state))
    );
    await this.#reactions;
  }

  /** Emits an event about this turn's work item and delivery. Never throws. */
  emit(type: string, fields: Record<string, unknown> = {}, level?: "warning" | "error"): void {
    try {
      this.deps.events.emit(
        type,
        { work_item: this.ref, delivery_id: this.event.deliveryId, ...fields },
        level ? { level } : undefined,
      );
    } catch { /* the log must not decide a dispatch */ }
  }

  /** Settled: decided, nothing more to do, never retried. */
  settled(reason: SettledReason, ok?: boolean): Handled {
    return { outcome: { status: "settled", reason }, ...(ok !== undefined ? { ok } : {}) };
  }

  /** `dispatch.dropped` and settled. */
  dropped(reason: DroppedReason): Handled {
    this.emit("dispatch.dropped", {
      reason,
      kind: this.event.kind,
      gh_event: this.event.ghEvent,
      actor: this.event.actor,
    });
    return this.settled(reason);
  }

  /**
   * `dispatch.failed` {stage, error, will_retry} and the failed outcome, its cause told by `err`:
   * a {@linkcode DispatchTimeout}, the turn's own signal (a stop), or anything else.
   */
  failed(stage: FailureStage, err: unknown, retry = true): DispatchFailure {
    const error = messageOf(err);
    this.emit("dispatch.failed", { stage, error, will_retry: retry }, "warning");
    const cause: FailureCause = err instanceof DispatchTimeout
      ? "timeout"
      : this.signal?.aborted
      ? "aborted"
      : "error";
    return { status: "failed", stage, cause, message: error, retry };
  }

  /**
   * Runs one harness call (workspace, spawn, deliver, …) under `dispatchTimeoutSeconds` and the
   * dispatch's own signal: the call is handed an `AbortSignal`, and the turn stops waiting at the
   * deadline even if the call does not listen.
   */
  harness<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const seconds = this.config.dispatchTimeoutSeconds;
    return withDeadline(fn, {
      ms: seconds * 1000,
      signal: this.signal,
      onTimeout: () => new DispatchTimeout(what, seconds),
    });
  }
}
