/**
 * The trail one hook call leaves: `hooks.timed_out`, `hooks.failed`, `hooks.decided`,
 * `hooks.refused` as they apply, then always `hooks.ran`; before a `retry_backoff` hook is
 * called again, `hooks.retrying`. Its free text (errors, reasons, a
 * command's output) comes scrubbed of secret values in the call's outcome (`_runner_call.ts`).
 *
 * @module
 */
import type { EventSink } from "../events/mod.ts";
import type { Entry } from "./declaration/mod.ts";
import type { Outcome } from "./_runner_call.ts";
import { leakedNote } from "./_messages.ts";
import type { Transition } from "./circuit.ts";
import type { PointName } from "./sdk/points.ts";

/** What {@linkcode report} needs about one call. */
export interface CallReport {
  point: PointName;
  entry: Entry;
  workItem: string | null;
  outcome: Outcome;
  started: number;
  ended: number;
  timeoutMs: number;
}

function emitter(sink: EventSink) {
  return (event: string, fields: Record<string, unknown>, level?: "warning" | "error") => {
    try {
      sink.emit(event, fields, level ? { level } : undefined);
    } catch { /* a broken sink must not stop the chain */ }
  };
}

/** Emits the events of one call. A sink that throws is ignored (the chain must go on). */
export function report(sink: EventSink, r: CallReport): void {
  const emit = emitter(sink);
  const { outcome: o, entry } = r;
  const base = { point: r.point, hook: entry.name };
  if (o.disposition === "timed_out") {
    emit("hooks.timed_out", {
      ...base,
      timeout_ms: r.timeoutMs,
      leaked: o.leaked === true,
      ...(o.leaked ? { stuck: o.stuck ?? "unknown", note: leakedNote(o.stuck) } : {}),
      work_item: r.workItem,
    }, "warning");
  }
  if (o.error !== undefined) {
    emit("hooks.failed", {
      ...base,
      error: o.error,
      required: entry.required,
      work_item: r.workItem,
    });
  }
  if (o.changed.length > 0) {
    emit("hooks.decided", { ...base, changed: o.changed, work_item: r.workItem });
  }
  if (o.refusal !== undefined) {
    emit("hooks.refused", { ...base, reason: o.refusal, work_item: r.workItem });
  }
  const t = o.telemetry;
  emit("hooks.ran", {
    ...base,
    kind: entry.kind,
    work_item: r.workItem,
    started: new Date(r.started).toISOString(),
    ended: new Date(r.ended).toISOString(),
    duration_ms: Math.max(0, Math.round((r.ended - r.started) * 1000) / 1000),
    disposition: o.disposition,
    changed: o.changed,
    ...(t?.exit_code !== undefined ? { exit_code: t.exit_code } : {}),
    ...(t?.stdout !== undefined ? { stdout: t.stdout } : {}),
    ...(t?.stderr !== undefined ? { stderr: t.stderr } : {}),
    ...(t?.stdout_truncated !== undefined ? { stdout_truncated: t.stdout_truncated } : {}),
    ...(t?.stderr_truncated !== undefined ? { stderr_truncated: t.stderr_truncated } : {}),
  });
}

/** What {@linkcode reportRetry} needs about one retry. */
export interface RetryReport {
  point: PointName;
  entry: Entry;
  workItem: string | null;
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** The wait before the next one, in ms. */
  ms: number;
  /** Why it failed (scrubbed). */
  error: string;
}

/** Emits `hooks.retrying`: a suspend hook with retry_backoff failed and is called again. */
export function reportRetry(sink: EventSink, r: RetryReport): void {
  const emit = emitter(sink);
  emit("hooks.retrying", {
    hook: r.entry.name,
    point: r.point,
    work_item: r.workItem,
    attempt: r.attempt,
    wait_ms: r.ms,
    error: r.error,
  }, "warning");
}

/** What {@linkcode reportCircuit} needs about a circuit's change. */
export interface CircuitReport {
  entry: Entry;
  transition: Transition;
  /** The point of the call that changed it (absent for a reload). */
  point?: PointName;
  workItem?: string | null;
}

/** Emits `hooks.circuit_opened` or `hooks.circuit_closed` (its `last_error` already redacted). */
export function reportCircuit(sink: EventSink, r: CircuitReport): void {
  const emit = emitter(sink);
  const { entry, transition: t } = r;
  const base = {
    hook: entry.name,
    kind: entry.kind,
    ...(r.point !== undefined ? { point: r.point } : {}),
  };
  if (t.kind === "opened") {
    emit("hooks.circuit_opened", {
      ...base,
      required: entry.required,
      failures: t.failures,
      last_error: t.lastError,
      opened_at: new Date(t.openedAt).toISOString(),
      retry_at: new Date(t.retryAt).toISOString(),
      cool_down_ms: t.coolDownMs,
      reopened: t.reopened,
      work_item: r.workItem ?? null,
    });
  } else {
    emit("hooks.circuit_closed", {
      ...base,
      after: t.after,
      opened_at: new Date(t.openedAt).toISOString(),
      skipped: t.skipped,
    });
  }
}
