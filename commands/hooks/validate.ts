/**
 * `the-loop hooks validate [--online] [--format text|json]`: the preflight CI runs. Parses the
 * declaration, then loads every enabled hook on its own, as the daemon would at start: a module
 * in its sandbox (and it must handle the points its `on` claims), a command's program must be
 * executable, a remote's `tokenEnv` must be set; `--online` also GETs each remote's `/health`.
 * A module hook whose worker dies on its own right after loading is a problem (a daemon would
 * restart it until its circuit opened). Every problem is listed, one per line, naming the hook;
 * exit 1 if there is any. Each hook's circuit, as the daemons recorded it under `state.root`,
 * is shown too: an open one is not a problem of the declaration, but its line says so and how
 * to re-arm it.
 *
 * Hooks load concurrently (a bounded pool) and each hook's line is printed as it finishes, with
 * its load time; on a terminal a progress line on stderr says what is still loading. Module
 * hooks are then type-checked against the SDK by one `deno check` when `deno` is on `PATH`
 * (`--no-typecheck` skips it; without deno a note says how to get it). `--format json` prints
 * one document at the end, also when the config cannot be read.
 *
 * @module
 */
import type { Command } from "commander";
import { plural, type Problem, ProblemsError, problemsSummary } from "../../errors.ts";
import { type CliContext, println } from "../context.ts";
import { formatOption } from "../_output.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { readDeclaration } from "../_declaration.ts";
import type { HookReport } from "./_preflight.ts";
import { circuitText, type CircuitView, readCircuits } from "./_circuits.ts";
import { Progress } from "./_progress.ts";
import { typecheck, type TypecheckResult } from "./_typecheck.ts";
import { attachDiagnostics, line, okLine, typecheckLine } from "./_validate_text.ts";

interface ValidateFlags {
  online?: boolean;
  typecheck: boolean;
  format: "text" | "json";
}

/** The `command` of the JSON document. */
const COMMAND = "hooks validate";

/** Registers `hooks validate`. */
export function register(hooks: Command, ctx: CliContext): void {
  const cmd = hooks.command("validate")
    .description(
      "load every enabled hook as the daemon would (sandbox, programs, token variables), " +
        "type-check module hooks, and list every problem",
    )
    .option("--online", "also call each remote hook's /health")
    .option("--no-typecheck", "do not type-check module hooks with deno check");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((flags: ValidateFlags) =>
    jsonOnFailure(ctx, {
      json: flags.format === "json",
      command: COMMAND,
      fields: { online: flags.online === true, hooks: [] },
    }, (ctx) => validate(ctx, flags))
  );
}

function summary(problems: Problem[], hooks: number): string {
  return problemsSummary(
    problems,
    `hooks validate: ${plural(problems.length, "problem")} in ${plural(hooks, "hook")}`,
  );
}

/** A progress line only where a person watches: stderr is a terminal. */
function onTerminal(ctx: CliContext): boolean {
  try {
    return ctx.env("TERM") !== "dumb" && Deno.stderr.isTerminal();
  } catch {
    return false;
  }
}

async function validate(ctx: CliContext, flags: ValidateFlags): Promise<void> {
  const json = flags.format === "json";
  const online = flags.online === true;
  const { loaded, decl } = await readDeclaration(ctx);
  const circuits = await readCircuits(loaded.config.state.root, decl.entries.map((e) => e.name));
  const enabled = decl.entries.filter((e) => e.enabled);
  const progress = new Progress((t) => ctx.warn(t), {
    enabled: onTerminal(ctx),
    total: enabled.length,
  });
  const print = (r: HookReport) => {
    if (json) return;
    println(ctx, line(r));
    for (const n of r.notes ?? []) println(ctx, `      note  ${n}`);
    const c: CircuitView = circuits.get(r.name)!;
    if (c.state !== "closed") println(ctx, `      circuit ${circuitText(r.name, c)}`);
  };
  const files = [
    ...new Set(enabled.flatMap((e) => e.kind === "module" ? [e.path] : [])),
  ];
  // one deno check process, beside the loads (it is another process: it overlaps them)
  const checking = flags.typecheck && files.length > 0
    ? typecheck(files, { env: ctx.env })
    : undefined;
  const { preflight } = await import("./_preflight.ts");
  let reports: HookReport[];
  try {
    reports = await preflight(decl, {
      env: ctx.env,
      online,
      onStart: (e) => progress.start(e.name),
      onReport: (r) => r.enabled ? progress.finish(r.name, () => print(r)) : print(r),
    });
  } finally {
    progress.clear();
  }
  if (checking) {
    progress.phase(`type-checking ${plural(files.length, "module hook file")} (deno check)…`);
  }
  let checked: TypecheckResult | undefined = await checking;
  // a file that does not parse stops deno check for all: check again without the hooks that
  // failed to load (their load problem says why), so the others' type errors are still found
  const loadedOk = [
    ...new Set(reports.flatMap((r, i) => {
      const e = decl.entries[i];
      return r.ok && e.enabled && e.kind === "module" ? [e.path] : [];
    })),
  ];
  if (
    checked?.ran && loadedOk.length > 0 && loadedOk.length < files.length &&
    (checked.note || checked.diagnostics.some((d) => d.code === "error"))
  ) {
    checked = await typecheck(loadedOk, { env: ctx.env });
  }
  progress.clear();
  const attached = checked?.ran
    ? attachDiagnostics(decl, reports, checked.diagnostics)
    : { hooks: new Set<number>(), loose: [] };
  const loose = attached.loose;
  const problems = [...reports.flatMap((r) => r.problems), ...loose];
  const ok = problems.length === 0;
  if (json) {
    const hooks = reports.map((r) => ({ ...r, circuit: circuits.get(r.name)! }));
    printEnvelope(ctx, COMMAND, { ok, config: configRef(loaded), problems }, {
      online,
      hooks,
      typecheck: typecheckJson(flags.typecheck, checked),
    });
  } else {
    for (const i of [...attached.hooks].sort((a, b) => a - b)) {
      println(ctx, line(reports[i], { typecheck: true }));
    }
    const tc = typecheckLine(checked);
    if (tc) println(ctx, tc);
    if (ok) println(ctx, okLine(reports, online));
  }
  if (!ok) {
    const failing = reports.filter((r) => !r.ok).length;
    throw new ProblemsError(problems, summary(problems, failing));
  }
}

function typecheckJson(on: boolean, r: TypecheckResult | undefined) {
  if (!on) return { ran: false, note: "skipped: --no-typecheck" };
  if (!r) return { ran: false, note: "no module hooks to check" };
  return r.ran
    ? {
      ran: true,
      files: r.files,
      ms: r.ms,
      errors: r.diagnostics.length,
      ...(r.note ? { note: r.note } : {}),
    }
    : { ran: false, note: r.note };
}
