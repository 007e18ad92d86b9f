/**
 * The dispatcher: the daemon's back half behind the router's {@linkcode Dispatcher}
 * seam. A routed event becomes a prompt delivered into its work item's session, a new session
 * in its own checkout, a control action, or a closure — with the lifecycle hooks asked at each
 * of their moments. `docs/dispatch.md` tells the whole story; in short:
 *
 * - one queue per work item (one event at a time, in arrival order), at most
 *   `maxConcurrentDispatches` across items, every harness call bounded by
 *   `dispatchTimeoutSeconds`;
 * - a delivery into a live session gives the item's queue back at once: the prompts that gather
 *   while an earlier delivery into that session is under way go in next, together, in order
 *   (`turn/batch.ts`);
 * - a delivery id a session already took is settled `duplicate-delivery`; one marked in flight
 *   on it (pasted, maybe, just before a crash) is delivered again, its prompt saying it may repeat;
 * - a comment carrying one control keyword is executed and never forwarded; two are ambiguous;
 * - every prompt is made terminal-safe before a runner gets it (`_safe_runner.ts`): no control
 *   character, paste marker or key sequence reaches a harness;
 * - with no session, the spawn policy (`spawnOnUnmatched`, `requireStartCommand`) decides;
 * - reactions (👀 then 🎉 or 😕), the spawn announcement and refusal comments are best-effort
 *   comments and reactions through the GitHub client, never the dispatch's outcome.
 *
 * ```ts
 * const dispatcher = new SessionDispatcher({ config: () => routing, sessions, control, … });
 * await dispatcher.dispatch(event); // { status: "delivered" } | { status: "settled", reason } | …
 * ```
 *
 * @module
 */
import type { SessionDispatcherOptions } from "./seams.ts";
import type {
  Dispatcher,
  DispatchOutcome,
  RoutedEvent,
  VerbRequest,
  VerbResult,
  Via,
} from "./types.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { messageOf } from "../errors.ts";
import { KeyedQueue } from "../async/mod.ts";
import { FileStartMarks } from "./_arming.ts";
import {
  abortedWaiting,
  act,
  type Answer,
  deliverBatch,
  Deliveries,
  type Deps,
  handle,
  type Handled,
  noteSent,
  react,
  Turn,
  verbEvent,
} from "./turn/mod.ts";
import { Lane, Slots } from "../async/mod.ts";
import { terminalSafe } from "./_safe_runner.ts";
import { grantFor, Meters } from "./turn/mod.ts";
import type { SuspensionRecord } from "./suspensions/mod.ts";
import { type Replay, replayed, replaysOf, resumedRecords } from "./turn/mod.ts";

/** The dispatcher (see the module doc). */
export class SessionDispatcher implements Dispatcher {
  readonly #deps: Deps;
  readonly #queue: KeyedQueue;
  readonly #finishing = new Set<Promise<void>>();
  /** The resumed records whose held deliveries this process queued (each once). */
  readonly #replaying = new Set<string>();

  constructor(opts: SessionDispatcherOptions) {
    const templates = opts.templates;
    this.#deps = {
      ...opts,
      // the one gate every prompt passes on its way to a harness (spawn, respawn, delivery)
      runner: terminalSafe(opts.runner),
      templates: typeof templates === "function" ? templates : () => templates,
      startMarks: opts.startMarks ?? new FileStartMarks(opts.controlStore.dir),
      now: opts.now ?? (() => new Date()),
      uuid: opts.uuid ?? (() => crypto.randomUUID()),
      react,
      // a headless delivery is a harness run (minutes, a process): bounded; a paste into a
      // running tmux pane takes milliseconds and launches nothing
      deliveries: new Deliveries({
        run: deliverBatch,
        note: noteSent,
        limit: () =>
          opts.runner.kind === "process" ? opts.config().maxConcurrentDispatches : Infinity,
      }),
      launches: new Slots(() => opts.config().maxConcurrentDispatches),
      replay: (record) => this.#replay(record),
      replaying: (id) => this.#replaying.has(id),
      meters: new Meters(),
      reactions: new Lane({
        busy: () => {
          const { running, waiting } = this.load;
          return running + waiting > 0;
        },
      }),
    };
    this.#queue = new KeyedQueue(() => opts.config().maxConcurrentDispatches);
  }

  /** Events running and waiting (for status lines and tests); a delivery batch counts its events. */
  get load(): { running: number; waiting: number } {
    const turns = this.#queue.size;
    const deliveries = this.#deps.deliveries.size;
    return {
      running: turns.running + deliveries.running,
      waiting: turns.waiting + deliveries.waiting,
    };
  }

  /**
   * Queues `event` behind its work item's earlier events; resolves when its turn is done (a
   * delivery: once its batch went into the session).
   */
  dispatch(
    event: RoutedEvent,
    opts: { signal?: AbortSignal; replay?: Replay } = {},
  ): Promise<DispatchOutcome> {
    return new Promise((resolve, reject) => {
      // a replay goes ahead of the item's events that arrived while it was held
      this.#queue.run(event.workItem.ref, async () => {
        if (opts.signal?.aborted) {
          resolve(abortedWaiting());
          return;
        }
        const turn = new Turn(this.#deps, event, opts.signal, opts.replay);
        let answer: Answer;
        try {
          answer = await handle(turn);
        } catch (err) {
          answer = { outcome: turn.failed("dispatch", err) };
        }
        // a delivery settles when its batch is done; the item's next event need not wait for it
        if ("later" in answer) answer.later.then((h) => resolve(this.#done(turn, h)), reject);
        else resolve(this.#done(turn, answer));
      }, opts.replay ? { first: true } : {}).catch(reject);
    });
  }

  /**
   * Runs a verb of the control endpoint (`advance`, `ask`, `reply`) as a turn of its work item:
   * behind the item's earlier events, one at a time. Never rejects: a malformed ref is exit 2,
   * a failure exit 1, each with a message saying what to do.
   */
  act(req: VerbRequest, opts: { via: Via; signal?: AbortSignal }): Promise<VerbResult> {
    const item = parseWorkItem(req.ref);
    if (!item) {
      return Promise.resolve({
        exit: 2,
        message: `not a work item ref: ${JSON.stringify(req.ref)} (github:OWNER/REPO#N)`,
      });
    }
    const event = verbEvent(req, {
      item,
      via: opts.via,
      deliveryId: `verb-${this.#deps.uuid()}`,
    });
    return new Promise((resolve) => {
      this.#queue.run(item.ref, async () => {
        if (opts.signal?.aborted) {
          resolve({ exit: 1, message: "the daemon is stopping; try again once it is back" });
          return;
        }
        const turn = new Turn(this.#deps, event, opts.signal);
        try {
          resolve(await act(turn, req));
        } catch (err) {
          turn.emit("dispatch.failed", { stage: "verb", error: messageOf(err) }, "warning");
          resolve({ exit: 1, message: `${req.verb} failed: ${messageOf(err)}` });
        }
      }).catch((err) => resolve({ exit: 1, message: `${req.verb} failed: ${messageOf(err)}` }));
    });
  }

  /**
   * A resumed record's held deliveries, queued now, in order, before anything that arrives
   * after: each a turn that replays what it had asked; each leaves the record when done.
   */
  #replay(record: SuspensionRecord): void {
    const store = this.#deps.suspensions;
    if (!store || this.#replaying.has(record.id)) return;
    this.#replaying.add(record.id);
    if (record.held.length === 0) {
      // a pause that held nothing (a budget a run used up): done once resumed
      void this.#queue.run(record.workItem, () => store.remove(record.id)).catch(() => {});
      return;
    }
    for (const { event, replay } of replaysOf(record)) {
      // each leaves the record once its turn is done, in the item's queue (never beside a turn
      // that rewrites the record)
      const leave = () =>
        void this.#queue.run(record.workItem, () => replayed(store, record.id, event.deliveryId))
          .catch((err) =>
            this.#deps.events.emit("dispatch.registry_failed", {
              work_item: record.workItem,
              error: messageOf(err),
            }, { level: "warning" })
          );
      this.dispatch(event, { replay }).then(leave, leave);
    }
  }

  /**
   * At a daemon's start: the records marked resumed (by `hooks resume` while no daemon ran, or
   * a crash in the middle of a replay) have their held deliveries queued first. Call before
   * routing begins.
   */
  async recover(): Promise<number> {
    const store = this.#deps.suspensions;
    if (!store) return 0;
    const records = await resumedRecords(store);
    for (const r of records) {
      // a budget's pause resumed while no daemon ran: its window is granted here
      if (r.budget && !this.#replaying.has(r.id)) {
        await grantFor(this.#deps, r.workItem).catch((err) =>
          this.#deps.events.emit("dispatch.registry_failed", {
            work_item: r.workItem,
            error: messageOf(err),
          }, { level: "warning" })
        );
      }
      this.#replay(r);
    }
    return records.length;
  }

  /**
   * Escalates each suspension older than its hook's `suspendTimeoutMinutes` (once:
   * `hooks.suspension_escalated`, which notifies; never resumed by it). The daemon calls it on a
   * timer; the escalated records.
   */
  async escalate(now = this.#deps.now()): Promise<SuspensionRecord[]> {
    const store = this.#deps.suspensions;
    if (!store) return [];
    const due = (await store.list()).filter((r) =>
      !r.resumed && !r.escalatedAt && r.timeoutMinutes !== undefined &&
      now.getTime() - Date.parse(r.since) >= r.timeoutMinutes * 60_000
    );
    const escalated: SuspensionRecord[] = [];
    for (const r of due) {
      // in the item's queue, read again: a turn may have held, resumed or discarded it meanwhile
      const done = await this.#queue.run(r.workItem, async () => {
        const current = await store.get(r.id);
        if (!current || current.resumed || current.escalatedAt) return false;
        await store.put({ ...current, escalatedAt: now.toISOString() });
        return true;
      });
      if (!done) continue;
      escalated.push(r);
      this.#deps.events.emit("hooks.suspension_escalated", {
        work_item: r.workItem,
        id: r.id,
        point: r.point,
        hook: r.hook,
        since: r.since,
        minutes: r.timeoutMinutes,
        comment_url: r.commentUrl ?? null,
      }, { level: "warning" });
    }
    return escalated;
  }

  #done(turn: Turn, { outcome, ok }: Handled): DispatchOutcome {
    // the 🎉/😕 reaction goes out after the turn, not inside it: a GitHub round trip must not
    // hold the work item's queue (or a dispatch slot) while the next event waits
    const finishing = turn.finish(ok ?? outcome.status === "delivered").catch(() => {});
    this.#finishing.add(finishing);
    finishing.finally(() => this.#finishing.delete(finishing));
    return outcome;
  }

  /** Resolves once every reaction begun so far has been sent (a stopping daemon; tests). */
  async idle(): Promise<void> {
    while (this.#finishing.size > 0) await Promise.all([...this.#finishing]);
  }
}
