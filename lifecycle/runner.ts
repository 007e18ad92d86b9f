/**
 * The chain runner, modelled on rollup's PluginDriver: every hook call is wrapped, timed and
 * attributed to its hook by name. At a point, each enabled hook that handles it is called in
 * declaration order with the context as the previous hooks left it; its answer's decisions are
 * applied in place. A failing hook is a warning and an event, never an exception: the chain
 * always finishes and {@linkcode Runner.run} returns the very object it was given.
 *
 * Rules where the hooks disagree: a refusal (proceed=false) stands — a later hook's answer may
 * not set proceed back to true nor reword the reason (its other decisions still apply, and a
 * warning says so). A `required` hook that fails at a point with a `proceed` decision refuses
 * the operation; at a point without one its failure is only a failure.
 *
 * Each hook's failure policy (`onError`): `warn` — a warning, the chain goes on; `block` (=
 * `required`) — as above; `suspend` — at a point with a `proceed` decision (not yet refused)
 * its failure parks the operation: the chain stops there and a {@linkcode Suspension} is
 * recorded for the caller ({@linkcode suspensionOf}); with `retry_backoff` the hook is called
 * again after each of its waits first (`hooks.retrying`), and the first answer wins. A refusal
 * is an answer, never a failure. Elsewhere a suspend hook's failure is only a failure (its
 * retries still run). A resumed run ({@linkcode ResumeFrom}) skips the hooks that ran before
 * the park, and the parking hook too unless it is to be called once more — and then its
 * failure is final: it refuses as `block` would.
 *
 * Each hook has a circuit breaker (`circuit.ts`): after repeated failures its calls are
 * skipped for a cool-down — a required hook's operations are refused meanwhile, never let
 * through — then one probe call decides whether it closes. `hooks.circuit_opened` and
 * `hooks.circuit_closed` say so, once per change; with a {@linkcode CircuitStore} the open
 * circuit is also written where `the-loop hooks` reads it, and removing it (`hooks reset`)
 * lets the next call through as a probe.
 *
 * The runner's parts, one file each: this chain; one call and its outcome (`_runner_call.ts`,
 * where what a hook said is scrubbed of secret values, once); the events it leaves
 * (`_runner_events.ts`); the circuits (`_runner_circuits.ts`). Every text is written in
 * `_messages.ts`; what a park is, in `suspension.ts`.
 *
 * @module
 */
import { emitAll, type EventSink, type PendingEvent } from "../events/mod.ts";
import type { ContextOf } from "./sdk/contract.ts";
import type { Entry } from "./declaration/mod.ts";
import { timeoutMs } from "./declaration/mod.ts";
import type { Executor } from "./executor.ts";
import type { PointName } from "./sdk/points.ts";
import {
  callOne,
  errorText,
  hasProceed,
  type Outcome,
  type Redact,
  skipOne,
} from "./_runner_call.ts";
import { report, reportRetry } from "./_runner_events.ts";
import { warn } from "./_messages.ts";
import { delay } from "../async/mod.ts";
import { DEFAULT_RETRY_BACKOFF_MS } from "./declaration/mod.ts";
import {
  clearSuspension,
  recordSuspension,
  type ResumeFrom,
  type Suspension,
  suspensionOf,
} from "./suspension.ts";
import type { CircuitPolicy, CircuitStatus } from "./circuit.ts";
import { Circuits } from "./_runner_circuits.ts";
import type { CircuitStore } from "./circuit_store.ts";
import { redactor } from "./secrets.ts";

/** The hook that refused each context (a refusal stands, so the first refuser is the one). */
const refusers = new WeakMap<object, string>();

/**
 * The name of the hook that set `proceed: false` on `ctx` during a {@linkcode Runner.run}
 * (its answer, its command's exit 2, or its failure as a required hook); `undefined` when no
 * hook refused. Call sites use it for the `⚠️ … <hook>: <reason>` comment.
 */
export function refuserOf(ctx: object): string | undefined {
  return refusers.get(ctx);
}

export { type ResumeFrom, type Suspension, suspensionOf };

/** Options of one {@linkcode Runner.run}. */
export interface RunOptions {
  /** Go on with a chain a suspension stopped (see {@linkcode ResumeFrom}). */
  resume?: ResumeFrom;
}

/** A declared hook and its loaded executor. */
export interface RunnerEntry {
  entry: Entry;
  executor: Executor;
}

/** Options for {@linkcode Runner}. */
export interface RunnerOptions {
  /** The hooks, in declaration order. Disabled entries are never called. */
  entries: RunnerEntry[];
  /** Where `hooks.*` events go. */
  sink: EventSink;
  /** Where warnings go (one line each); default: nowhere. */
  warn?: (message: string) => void;
  /** The clock, in epoch milliseconds; default: `performance`'s, precise to microseconds. */
  now?: () => number;
  /**
   * Secret values (bearer tokens, header values, passed-through variables) to scrub from every
   * error, reason and output the runner writes; read at each call so rotated tokens count.
   */
  secrets?: () => readonly string[];
  /** The circuit breakers' numbers; default `CIRCUIT_POLICY` (5 failures in 60 s; 30 s cool-down). */
  circuit?: Partial<CircuitPolicy>;
  /**
   * Where open circuits are written for `the-loop hooks` to show (daemons: a
   * `FileCircuitStore` under `state.root`); default nowhere (kept in memory only).
   */
  circuitStore?: CircuitStore;
  /**
   * How a `retry_backoff` retry waits `ms`; it must end (reject) once `signal` is aborted —
   * {@linkcode Runner.close} aborts it. Default: `async`'s `delay`.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** One hook's place in a run: called as declared, or (a rerun after a resume) its failure final. */
interface Turn {
  entry: Entry;
  executor: Executor;
  /** The call after a wait_then_retry resume: a failure refuses as `block` would. */
  final?: boolean;
}

/** What one turn left: go on, or stop the chain (a suspension, or the runner closing). */
type TurnEnd = "next" | "stop";

/** Runs the hooks of one declaration. */
export class Runner {
  readonly #entries: RunnerEntry[];
  readonly #sink: EventSink;
  readonly #warn: (message: string) => void;
  readonly #now: () => number;
  readonly #redact: Redact;
  readonly #circuits: Circuits;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted by {@linkcode close}: ends a retry's wait. */
  readonly #closing = new AbortController();
  #closed?: Promise<void>;

  constructor(opts: RunnerOptions) {
    this.#entries = [...opts.entries];
    this.#sink = opts.sink;
    this.#warn = opts.warn ?? (() => {});
    this.#now = opts.now ?? (() => performance.timeOrigin + performance.now());
    this.#redact = redactor(opts.secrets ?? (() => []));
    this.#sleep = opts.sleep ?? ((ms, signal) => delay(ms, { signal }));
    this.#circuits = new Circuits({
      entries: this.#entries.map((e) => e.entry),
      policy: opts.circuit,
      store: opts.circuitStore,
      warn: (m) => this.#safeWarn(m),
      now: this.#now,
    });
  }

  /** `text` with the declaration's secret values scrubbed (as every hook output is). */
  redact(text: string): string {
    return this.#redact(text);
  }

  /** Each enabled hook's circuit, in declaration order. */
  circuits(): CircuitStatus[] {
    return this.#circuits.status();
  }

  /**
   * Re-arms what a reload replaces: each hook whose circuit was open in `previous` (the runner
   * this one replaces) or is recorded open in the store starts closed, with
   * `hooks.circuit_closed` {after: "reload"}, and its file is removed. Never throws.
   */
  async rearmAfterReload(previous?: Runner): Promise<void> {
    const sink: EventSink = {
      emit: (event, fields, opts) => {
        try {
          this.#sink.emit(event, fields, opts);
        } catch { /* a broken sink must not stop the reload */ }
      },
    };
    try {
      await this.#circuits.rearmAfterReload(previous?.circuits(), sink);
    } catch { /* never throws */ }
  }

  /** The names of the enabled hooks, in order. */
  get names(): string[] {
    return this.#entries.filter((e) => e.entry.enabled).map((e) => e.entry.name);
  }

  /**
   * Whether any enabled hook handles `point` (a call site may then skip gathering a fact nobody
   * reads). An executor whose `handles` throws counts as handling it.
   */
  handles(point: PointName): boolean {
    return this.#entries.some(({ entry, executor }) => {
      if (!entry.enabled) return false;
      try {
        return executor.handles(point);
      } catch {
        return true;
      }
    });
  }

  /**
   * Runs `point`'s chain over `ctx` and returns `ctx` itself, its decisions updated. Never
   * throws: a failure inside is logged and the context returned as it stands. When a suspend
   * hook's failure parks the operation, the chain stops there and {@linkcode suspensionOf}
   * returns why; `opts.resume` goes on with such a chain.
   */
  async run<P extends PointName>(
    point: P,
    ctx: ContextOf<P>,
    opts: RunOptions = {},
  ): Promise<ContextOf<P>> {
    if (this.#closed) return ctx;
    clearSuspension(ctx);
    // The chain's events are written together when it ends: one write to the event log per
    // run, not one per record (the chain's latency is what the operation waits for).
    const pending: PendingEvent[] = [];
    const collect: EventSink = {
      emit: (event, fields, opts) => void pending.push({ event, fields, level: opts?.level }),
    };
    try {
      for (const turn of this.#turns(point, opts.resume)) {
        const { entry, executor } = turn;
        try {
          if (!entry.enabled || !executor.handles(point)) continue;
          if (await this.#turn(point, ctx, turn, collect) === "stop") break;
        } catch (err) {
          // e.g. an executor's handles() that threw: scrubbed like everything a hook says
          this.#safeWarn(warn.unexpected(entry.name, point, errorText(err, this.#redact)));
        }
      }
    } finally {
      try {
        emitAll(this.#sink, pending);
      } catch { /* a broken sink must not reach the caller */ }
    }
    return ctx;
  }

  /**
   * The hooks a run calls, in order: all of them, or — resuming — those after the parking hook
   * (and that hook too, its failure final, when it is to be called again).
   */
  #turns(point: PointName, resume: ResumeFrom | undefined): Turn[] {
    const all: Turn[] = this.#entries;
    if (!resume) return all;
    const at = this.#entries.findIndex((e) => e.entry.enabled && e.entry.name === resume.hook);
    if (at < 0) {
      this.#safeWarn(warn.resumeMissing(resume.hook, point));
      return all;
    }
    if (!resume.rerun) return all.slice(at + 1);
    return [{ ...all[at], final: true }, ...all.slice(at + 1)];
  }

  /**
   * One hook's turn: its call, then what its policy makes of a failure — retries, a
   * suspension that stops the chain.
   */
  async #turn(
    point: PointName,
    ctx: ContextOf<PointName>,
    turn: Turn,
    sink: EventSink,
  ): Promise<TurnEnd> {
    const { entry, executor } = turn;
    // the rerun after a resume: its failure refuses, as a `block` hook's does
    const as: Entry = turn.final ? { ...entry, onError: "block", required: true } : entry;
    let outcome = await this.#callOne(point, ctx, as, executor, sink, turn.final);
    if (turn.final || entry.onError !== "suspend" || !isFailure(outcome)) return "next";
    const parks = hasProceed(point);
    if (parks && (ctx as { proceed?: unknown }).proceed === false) return "next";
    const waits = entry.suspendMode === "retry_backoff"
      ? entry.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS
      : [];
    let attempts = 1;
    for (const ms of waits) {
      const error = this.#failureText(entry, outcome);
      reportRetry(sink, { point, entry, workItem: workItemOf(ctx), attempt: attempts, ms, error });
      this.#safeWarn(warn.retrying(entry.name, point, attempts, ms));
      if (!await this.#wait(ms)) {
        // closing: the operation is not let through; it parks as if the retries ran out
        return this.#suspend(point, ctx, entry, outcome, attempts, parks);
      }
      outcome = await this.#callOne(point, ctx, entry, executor, sink);
      attempts++;
      if (!isFailure(outcome)) return "next";
    }
    return this.#suspend(point, ctx, entry, outcome, attempts, parks);
  }

  /** Records the suspension of a failed suspend hook (a proceed point only); stops the chain. */
  #suspend(
    point: PointName,
    ctx: ContextOf<PointName>,
    entry: Entry,
    outcome: Outcome,
    attempts: number,
    parks: boolean,
  ): TurnEnd {
    if (!parks) return this.#closing.signal.aborted ? "stop" : "next";
    const declared = entry.suspendMode ?? "wait_for_resume";
    const mode = declared === "wait_then_retry" ? "wait_then_retry" : "wait_for_resume";
    const s: Suspension = {
      hook: entry.name,
      point,
      mode,
      declared,
      error: this.#failureText(entry, outcome).split("\n")[0],
      attempts,
      ...(entry.suspendTimeoutMinutes !== undefined
        ? { timeoutMinutes: entry.suspendTimeoutMinutes }
        : {}),
    };
    recordSuspension(ctx, s);
    this.#safeWarn(warn.suspended(entry.name, point, mode, attempts));
    return "stop";
  }

  /** Waits before a retry; false when the runner closed meanwhile. */
  async #wait(ms: number): Promise<boolean> {
    if (this.#closing.signal.aborted) return false;
    try {
      await this.#sleep(ms, this.#closing.signal);
    } catch {
      return false;
    }
    return !this.#closing.signal.aborted;
  }

  /** A failed call's error (scrubbed); a skipped call's: why it was not called. */
  #failureText(entry: Entry, outcome: Outcome): string {
    return outcome.error ?? this.#circuits.skipReason(entry);
  }

  /**
   * One call of a hook: admitted by its circuit (or skipped), called, reported, warned about,
   * and its outcome fed back to its circuit.
   */
  async #callOne(
    point: PointName,
    ctx: ContextOf<PointName>,
    entry: Entry,
    executor: Executor,
    sink: EventSink,
    final = false,
  ): Promise<Outcome> {
    const started = this.#now();
    const admission = await this.#circuits.admit(entry, started);
    const probe = admission.kind === "probe";
    const outcome = admission.kind === "skip"
      ? skipOne(point, ctx, entry, this.#circuits.skipReason(entry))
      : await callOne(point, ctx, entry, executor, { redact: this.#redact, probe });
    const ended = this.#now();
    const workItem = workItemOf(ctx);
    report(sink, { point, entry, workItem, outcome, started, ended, timeoutMs: timeoutMs(entry) });
    if (outcome.refusal !== undefined && !refusers.has(ctx)) refusers.set(ctx, entry.name);
    this.#warnAbout(point, entry, outcome, final);
    if (admission.kind !== "skip") {
      await this.#circuits.settle(entry, probe, outcome, ended, sink, { point, workItem });
    }
    if (outcome.overturnBlocked) this.#safeWarn(warn.overturnBlocked(entry.name, point));
    return outcome;
  }

  /** The warnings one call's outcome gives (its texts scrubbed already). */
  #warnAbout(point: PointName, entry: Entry, outcome: Outcome, final: boolean): void {
    const hook = entry.name;
    if (outcome.disposition === "timed_out") {
      const leaked = outcome.leaked ? { stuck: outcome.stuck } : undefined;
      this.#safeWarn(warn.timedOut(hook, point, timeoutMs(entry), leaked));
    } else if (outcome.error !== undefined) {
      this.#safeWarn(warn.failed(hook, point, outcome.error));
    }
    const failedRefusal = outcome.refusal !== undefined &&
      (outcome.error !== undefined || outcome.disposition === "skipped");
    if (failedRefusal && final) {
      this.#safeWarn(warn.rerunRefuses(hook, point));
    } else if (outcome.error !== undefined && outcome.refusal !== undefined) {
      this.#safeWarn(warn.requiredRefuses(hook, point));
    } else if (outcome.disposition === "skipped" && outcome.refusal !== undefined) {
      this.#safeWarn(warn.skippedRequired(hook, point));
    }
  }

  #safeWarn(message: string): void {
    try {
      this.#warn(message);
    } catch { /* a broken warn callback must not stop the chain */ }
  }

  /** Closes every executor (workers, child processes). Idempotent; never throws. */
  close(): Promise<void> {
    // an open circuit's file stays: `the-loop hooks` shows it (its pid no longer running), and
    // the next configure re-arms it; a retry's wait ends now
    this.#closing.abort();
    this.#closed ??= Promise.all(
      this.#entries.map(({ executor }) => executor.close().catch(() => {})),
    ).then(() => {});
    return this.#closed;
  }
}

/** A call that did not answer: it failed, timed out, or was skipped (its circuit is open). */
function isFailure(o: Outcome): boolean {
  return o.disposition === "failed" || o.disposition === "timed_out" ||
    o.disposition === "skipped";
}

/** The work item a context is about (`work_item.ref`, or a bare ref), for the events. */
function workItemOf(ctx: ContextOf<PointName>): string | null {
  const wi = (ctx as { work_item?: { ref?: unknown } | string }).work_item;
  return typeof wi === "string" ? wi : typeof wi?.ref === "string" ? wi.ref : null;
}
