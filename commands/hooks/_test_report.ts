/**
 * What `hooks test` prints: the decisions the hook changed, every decision after the call, its
 * `hooks.ran` record and how the result compares with `--expect`; as text or as JSON.
 *
 * @module
 */
import { type CliContext, colourOf, println as printRaw } from "../context.ts";
import { plural } from "../../errors.ts";
import { visible } from "../../terminal.ts";
import type { RunOneResult } from "./_run_one.ts";
import { type ConfigRef, envelope } from "../_envelope.ts";

/** One expected decision that differs from the result. */
export interface Mismatch {
  field: string;
  expected: unknown;
  actual: unknown;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of `expect` whose value differs in `after`. */
export function compare(
  expect: Record<string, unknown>,
  after: Record<string, unknown>,
): Mismatch[] {
  return Object.entries(expect)
    .filter(([k, v]) => !same(v, after[k]))
    .map(([field, expected]) => ({ field, expected, actual: after[field] }));
}

/** What is being reported on. */
export interface Shown {
  name: string;
  kind: string;
  point: string;
  expect?: Record<string, unknown>;
  mismatches: Mismatch[];
}

/** Did the hook fail or time out (rather than answer)? */
export function hookFailed(r: RunOneResult): boolean {
  return r.ran.disposition === "failed" || r.ran.disposition === "timed_out";
}

function changedOf(r: RunOneResult): string[] {
  return Array.isArray(r.ran.changed) ? r.ran.changed as string[] : [];
}

/** The envelope's head of a run: the config read and why the verdict is "failed", if it is. */
export interface JsonHead {
  config: ConfigRef;
  /** The verdict's error (the hook failed or timed out, or a decision differs from --expect). */
  failure?: Error;
}

/** The `--format json` document (`schema/cli/hooks-test.json`), in the envelope. */
export function jsonOf(r: RunOneResult, s: Shown, head: JsonHead): Record<string, unknown> {
  const changed = Object.fromEntries(
    changedOf(r).map((f) => [f, { before: r.before[f], after: r.after[f] }]),
  );
  const problems = head.failure ? [{ message: head.failure.message }] : [];
  return envelope("hooks test", { ok: !head.failure, config: head.config, problems }, {
    hook: s.name,
    kind: s.kind,
    point: s.point,
    disposition: r.ran.disposition,
    changed,
    decisions: r.after,
    ...(s.expect ? { expect: { ok: s.mismatches.length === 0, mismatches: s.mismatches } } : {}),
    telemetry: r.ran,
    events: r.events,
  });
}

/**
 * One line of the text report: the hook's decisions, output and errors are its own text, so
 * every control character in it is shown as an escape (`\e`, `\r`), never sent to the terminal.
 */
function println(ctx: CliContext, line: string): void {
  printRaw(ctx, visible(line));
}

/** Options for {@linkcode printText}. */
export interface TextOptions {
  /** Show the `hooks.ran` telemetry too (`--verbose`). */
  verbose?: boolean;
}

/**
 * The text report (the JSON document keeps the exact text: JSON escapes it). The telemetry
 * record is shown only with {@linkcode TextOptions.verbose}.
 */
export function printText(
  ctx: CliContext,
  r: RunOneResult,
  s: Shown,
  opts: TextOptions = {},
): void {
  const v = (x: unknown) => JSON.stringify(x);
  println(
    ctx,
    `hook ${s.name} (${s.kind}) at ${s.point}: ${r.ran.disposition} in ${r.ran.duration_ms} ms`,
  );
  const changed = changedOf(r);
  println(ctx, changed.length ? "changed:" : "changed: nothing");
  for (const f of changed) println(ctx, `  ${f}: ${v(r.before[f])} → ${v(r.after[f])}`);
  println(ctx, "decisions after the call:");
  const width = Math.max(...Object.keys(r.after).map((k) => k.length)) + 1;
  for (const [k, x] of Object.entries(r.after)) {
    println(ctx, `  ${(k + ":").padEnd(width)} ${v(x)}`);
  }
  if (opts.verbose) {
    println(ctx, "telemetry (hooks.ran):");
    println(ctx, `  ${v(r.ran)}`);
  }
  if (!s.expect) return;
  const n = Object.keys(s.expect).length;
  if (s.mismatches.length === 0) {
    printRaw(
      ctx,
      `expect: ${colourOf(ctx, "stdout").green("ok")} (${plural(n, "decision")} as expected)`,
    );
    return;
  }
  const k = s.mismatches.length;
  println(
    ctx,
    `expect: ${k} of ${plural(n, "expected decision")} ${k === 1 ? "differs" : "differ"}:`,
  );
  for (const m of s.mismatches) {
    println(ctx, `  - ${m.field}: ${v(m.expected)}   (expected)`);
    println(ctx, `  + ${m.field}: ${v(m.actual)}   (actual)`);
  }
}
