/**
 * What `hooks validate` prints per hook and at the end, and how the type check's diagnostics
 * become problems of the hooks whose files they are in.
 *
 * @module
 */
import { dirname } from "node:path";
import { plural, type Problem } from "../../errors.ts";
import type { Declaration } from "../../lifecycle/mod.ts";
import { POINT_NAMES } from "../../lifecycle/sdk/mod.ts";
import type { HookReport } from "./_preflight.ts";
import type { Diagnostic, TypecheckResult } from "./_typecheck.ts";

/** A hook's result line; with `typecheck`, the line saying it does not type-check. */
export function line(r: HookReport, opts: { typecheck?: boolean } = {}): string {
  const status = !r.enabled ? "skip" : r.ok ? "ok" : "FAIL";
  if (opts.typecheck) {
    const n = r.problems.filter((p) => / TS\d+: /.test(p.message)).length;
    return `FAIL  ${r.name} (${r.kind}): does not type-check: ${plural(n, "type error")}, below`;
  }
  const points = r.points?.length === POINT_NAMES.length
    ? "; called at every point"
    : r.points?.length
    ? `; called at ${r.points.join(", ")}`
    : "";
  const what = r.ok ? r.checked.join("; ") + points : `${r.problems.length} problem(s), below`;
  const took = r.enabled ? ` [${r.loadMs} ms]` : "";
  return `${status.padEnd(5)} ${r.name} (${r.kind}): ${what}${took}`;
}

/** The closing line when every hook is fine. */
export function okLine(reports: HookReport[], online: boolean): string {
  const on = reports.filter((r) => r.enabled).length;
  const off = reports.length - on;
  const remotes = reports.filter((r) => r.enabled && r.kind === "remote").length;
  const notes = [
    ...(off ? [`${off} disabled, not loaded`] : []),
    ...(remotes && !online ? ["remotes not contacted; add --online to call their /health"] : []),
  ];
  return `ok: ${plural(on, "hook")}` + (notes.length ? ` (${notes.join("; ")})` : "");
}

/** The type check's line: what it checked and how long it took, or why it did not run. */
export function typecheckLine(r: TypecheckResult | undefined): string | undefined {
  if (!r) return undefined;
  if (!r.ran) return `note  ${r.note}`;
  const what = `${plural(r.files, "module hook file")} against @the-loop/hooks (deno check, ` +
    `${r.ms} ms)`;
  if (r.note) return `note  type check of ${what}: ${r.note}`;
  return r.diagnostics.length === 0
    ? `ok    type check: ${what}`
    : `FAIL  type check: ${plural(r.diagnostics.length, "error")} in ${what}`;
}

function diagnosticProblem(name: string | undefined, d: Diagnostic): Problem {
  const about = name ? `hook "${name}": ` : "";
  const what = d.code === "error" ? "does not load" : `type error ${d.code}`;
  return { file: d.file, line: d.line, col: d.col, message: `${about}${what}: ${d.message}` };
}

/**
 * Adds each diagnostic to the reports of the enabled module hooks whose file it is in (else
 * whose directory holds it); a graph error (`error`) is left out for a hook that already failed
 * to load (its load problem says it). Returns the hooks given problems and the diagnostics that
 * belong to no hook.
 */
export function attachDiagnostics(
  decl: Declaration,
  reports: HookReport[],
  diagnostics: Diagnostic[],
): { hooks: Set<number>; loose: Problem[] } {
  const hooks = new Set<number>();
  const loose: Problem[] = [];
  const modules = decl.entries.flatMap((e, i) =>
    e.enabled && e.kind === "module" ? [{ i, path: e.path }] : []
  );
  for (const d of diagnostics) {
    let owners = modules.filter((m) => m.path === d.file);
    if (owners.length === 0) {
      owners = modules.filter((m) => d.file.startsWith(dirname(m.path) + "/"));
    }
    if (owners.length === 0) {
      loose.push(diagnosticProblem(undefined, d));
      continue;
    }
    for (const { i } of owners) {
      const r = reports[i];
      if (d.code === "error" && !r.ok) continue;
      r.problems.push(diagnosticProblem(r.name, d));
      r.ok = false;
      hooks.add(i);
    }
  }
  return { hooks, loose };
}
