/**
 * What one critic round answers, built from how its process ended (pure: no process here):
 *
 * ```json
 * { "critic": "claude-review", "harness": "claude", "model": "opus", "ok": true, "exitCode": 0,
 *   "durationSeconds": 12.3, "output": "LGTM…", "error": null,
 *   "usage": { "costUsd": 0.12, "tokens": 3400, "turns": 2 } }
 * ```
 *
 * `harness` is null for a command critic; `output` is a harness critic's answer (its adapter's
 * `answerFromOutput`, the raw stdout when the adapter reads none) or a command critic's stdout;
 * `usage` what the harness reported (null: nothing, or a command critic); `error` says what
 * failed and what to do (null when `ok`).
 *
 * @module
 */
import type { BoundedRunResult, HarnessAdapter, HarnessUsage } from "../../dispatch/mod.ts";
import type { Critic } from "./config.ts";

/** One critic round's answer. */
export interface CriticEnvelope {
  critic: string;
  harness: string | null;
  model: string | null;
  ok: boolean;
  /** The process's exit code; null when it did not start or a signal ended it. */
  exitCode: number | null;
  durationSeconds: number;
  output: string;
  error: string | null;
  usage: HarnessUsage | null;
}

/** Most characters of the critic's stderr quoted in `error`. */
const STDERR_QUOTED = 400;

function tail(text: string): string {
  const t = text.trim();
  if (!t) return "";
  const last = t.length > STDERR_QUOTED ? `…${t.slice(-STDERR_QUOTED)}` : t;
  return `; its stderr ends: ${last.replace(/\s*\n\s*/g, " | ")}`;
}

/** What {@linkcode criticEnvelope} takes. */
export interface EnvelopeInput {
  critic: Critic;
  /** The program that ran (argv[0]). */
  program: string;
  result: BoundedRunResult;
  /** The timeout in force (seconds). */
  timeoutSeconds: number;
  /** A harness critic's adapter (reads the answer and the usage). */
  adapter?: Pick<HarnessAdapter, "usageFromOutput" | "answerFromOutput">;
}

/** The envelope of a finished round (see the module doc). */
export function criticEnvelope(i: EnvelopeInput): CriticEnvelope {
  const { critic, result: r } = i;
  const harness = critic.kind === "harness" ? critic.harness : null;
  let output = r.stdout;
  let usage: HarnessUsage | null = null;
  if (i.adapter) {
    output = i.adapter.answerFromOutput?.(r.stdout) ?? r.stdout;
    usage = i.adapter.usageFromOutput(r.stdout) ?? null;
  }
  const ok = r.outcome === "exited" && r.code === 0;
  return {
    critic: critic.name,
    harness,
    model: critic.model,
    ok,
    exitCode: r.code,
    durationSeconds: Math.round(r.durationMs) / 1000,
    output,
    error: ok ? null : errorOf(i),
    usage,
  };
}

function errorOf(i: EnvelopeInput): string {
  const { critic, result: r, program } = i;
  const who = `critic "${critic.name}"`;
  switch (r.outcome) {
    case "not-found":
      return critic.kind === "harness"
        ? `${who}: ${program} (the ${critic.harness} CLI) is not installed or not on PATH: ` +
          `install it, or put it on PATH, and run again`
        : `${who}: ${program} is not installed or not on PATH: install it, or fix ` +
          `${critic.path}.command, and run again`;
    case "unstartable":
      return `${who}: could not start ${program}: ${r.error ?? "unknown reason"}`;
    case "timeout":
      return `${who}: ${program} ran longer than ${i.timeoutSeconds}s and was killed (its ` +
        `process tree ended): raise ${critic.path}.timeoutSeconds or pass --timeout${
          tail(r.stderr)
        }`;
    case "exited":
      return r.signal
        ? `${who}: ${program} was ended by ${r.signal}${tail(r.stderr)}`
        : `${who}: ${program} failed with exit code ${r.code}${tail(r.stderr)}`;
  }
}
