/**
 * The runner's circuit breakers, one per hook (`_circuit.ts`), and what goes with them: the
 * events and warnings of a change, the store where an open circuit is written for `the-loop
 * hooks`, noticing a reset (its file removed), and re-arming after a reload. Never throws.
 *
 * @module
 */
import type { EventSink } from "../events/mod.ts";
import type { Entry } from "./declaration/mod.ts";
import type { PointName } from "./sdk/points.ts";
import type { Outcome } from "./_runner_call.ts";
import { reportCircuit } from "./_runner_events.ts";
import { circuit, requiredUnavailable, unavailable } from "./_messages.ts";
import { messageOf } from "../errors.ts";
import {
  type Admission,
  Breaker,
  type CircuitPolicy,
  type CircuitStatus,
  type Transition,
} from "./circuit.ts";
import type { CircuitRecord, CircuitStore } from "./circuit_store.ts";

/** Options for {@linkcode Circuits}. */
export interface CircuitsOptions {
  entries: Entry[];
  policy?: Partial<CircuitPolicy>;
  store?: CircuitStore;
  /** One line per change; must not throw. */
  warn: (message: string) => void;
  /** The runner's clock, epoch ms. */
  now: () => number;
}

/** Where a call happened, for the events. */
export interface CallSite {
  point?: PointName;
  workItem?: string | null;
}

/** The breakers of one runner. */
export class Circuits {
  readonly #entries: Entry[];
  readonly #breakers = new Map<string, Breaker>();
  readonly #store?: CircuitStore;
  readonly #warn: (message: string) => void;
  readonly #now: () => number;
  /** Hooks whose open circuit is in the store (so a missing file means it was reset). */
  readonly #stored = new Set<string>();
  /** Circuit files are written one after another, in the order the changes happened. */
  #storing: Promise<void> = Promise.resolve();

  constructor(opts: CircuitsOptions) {
    this.#entries = opts.entries;
    this.#store = opts.store;
    this.#warn = opts.warn;
    this.#now = opts.now;
    for (const e of opts.entries) this.#breakers.set(e.name, new Breaker(e.name, opts.policy));
  }

  /** Each enabled hook's circuit, in declaration order. */
  status(): CircuitStatus[] {
    return this.#entries.filter((e) => e.enabled).map((e) => this.#breakers.get(e.name)!.status());
  }

  /** May `entry` be called now? An open circuit whose file was removed becomes half-open. */
  async admit(entry: Entry, now: number): Promise<Admission> {
    const breaker = this.#breakers.get(entry.name)!;
    if (breaker.open && this.#stored.has(entry.name)) {
      await this.#storing;
      try {
        if ((await this.#store!.read(entry.name)) === undefined) {
          this.#stored.delete(entry.name);
          breaker.reset();
        }
      } catch { /* unreadable: it stays open */ }
    }
    return breaker.admit(now);
  }

  /**
   * Why a skipped call did not answer: for a required hook, the reason its operation is refused
   * with (posted on the ticket); for another, its failure's text.
   */
  skipReason(entry: Entry): string {
    const s = this.#breakers.get(entry.name)!.status();
    const retryAt = s.retryAt !== undefined ? iso(s.retryAt) : undefined;
    return (entry.required ? requiredUnavailable : unavailable)(entry.name, s.failures, retryAt);
  }

  /**
   * Feeds a call's outcome (its error already scrubbed) to the hook's breaker, and reports and
   * records the change it makes, if any.
   */
  async settle(
    entry: Entry,
    probe: boolean,
    outcome: Outcome,
    now: number,
    sink: EventSink,
    site: CallSite,
  ): Promise<void> {
    const breaker = this.#breakers.get(entry.name)!;
    const t = outcome.disposition === "failed" || outcome.disposition === "timed_out"
      ? breaker.failed(now, (outcome.error ?? outcome.disposition).split("\n")[0], probe)
      : breaker.succeeded(probe);
    if (t) await this.#changed(entry, t, sink, site);
  }

  async #changed(entry: Entry, t: Transition, sink: EventSink, site: CallSite): Promise<void> {
    reportCircuit(sink, { entry, transition: t, ...site });
    const name = entry.name;
    if (t.kind === "opened" && !t.reopened) {
      const { failures, lastError: last } = t;
      this.#warn(
        circuit.opened(name, { failures, last, retryAt: iso(t.retryAt), required: entry.required }),
      );
    } else if (t.kind === "opened") {
      this.#warn(circuit.probeFailed(name, { last: t.lastError, retryAt: iso(t.retryAt) }));
    } else {
      this.#warn(circuit.closed(name, t.after));
    }
    if (!this.#store) return;
    const record: CircuitRecord | undefined = t.kind === "opened"
      ? {
        hook: name,
        state: "open",
        kind: entry.kind,
        required: entry.required,
        opened_at: iso(t.openedAt),
        retry_at: iso(t.retryAt),
        failures: t.failures,
        last_error: t.lastError,
        reopened: t.reopened,
        pid: Deno.pid,
      }
      : undefined;
    await this.#persist(name, record);
  }

  /** Writes (or, without `record`, removes) the hook's file, after every earlier change. */
  #persist(name: string, record: CircuitRecord | undefined): Promise<void> {
    const store = this.#store!;
    this.#storing = this.#storing.then(async () => {
      try {
        if (record) {
          await store.write(record);
          this.#stored.add(name);
        } else {
          this.#stored.delete(name);
          await store.remove(name);
        }
      } catch (err) {
        this.#stored.delete(name);
        this.#warn(circuit.notRecorded(name, messageOf(err)));
      }
    });
    return this.#storing;
  }

  /**
   * After a reload: every hook whose circuit was open in `previous` (the circuits of the runner
   * this one replaces) or is recorded open in the store starts closed — fresh executors, maybe
   * fixed code — with `hooks.circuit_closed` {after: "reload"}; its file is removed.
   */
  async rearmAfterReload(previous: CircuitStatus[] | undefined, sink: EventSink): Promise<void> {
    for (const entry of this.#entries) {
      if (!entry.enabled) continue;
      const before = previous?.find((c) => c.hook === entry.name);
      const wasOpen = before !== undefined && before.state !== "closed";
      let recordedAt: number | undefined;
      try {
        const rec = await this.#store?.read(entry.name);
        if (rec) {
          recordedAt = Date.parse(rec.opened_at);
          await this.#store!.remove(entry.name);
        }
      } catch { /* unreadable or undeletable: shown by `the-loop hooks`, reset by hand */ }
      if (!wasOpen && recordedAt === undefined) continue;
      const openedAt = wasOpen ? before.openedAt ?? NaN : recordedAt!;
      reportCircuit(sink, {
        entry,
        transition: {
          kind: "closed",
          after: "reload",
          openedAt: Number.isFinite(openedAt) ? openedAt : this.#now(),
          skipped: wasOpen ? before.skipped : 0,
        },
      });
      this.#warn(circuit.closed(entry.name, "reload"));
    }
  }
}

/** Epoch ms as UTC ISO-8601. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
