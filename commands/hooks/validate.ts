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
 * @module
 */
import type { Command } from "commander";
import { POINT_NAMES } from "../../lifecycle/sdk/mod.ts";
import { messageOf, plural, type Problem, ProblemsError, problemsSummary } from "../../errors.ts";
import { type CliContext, println } from "../context.ts";
import { formatOption, toJson } from "../_output.ts";
import { readDeclaration } from "../_declaration.ts";
import type { HookReport } from "./_preflight.ts";
import { circuitText, type CircuitView, readCircuits } from "./_circuits.ts";

interface ValidateFlags {
  online?: boolean;
  format: "text" | "json";
}

/** Registers `hooks validate`. */
export function register(hooks: Command, ctx: CliContext): void {
  const cmd = hooks.command("validate")
    .description(
      "load every enabled hook as the daemon would (sandbox, programs, token variables) and list every problem",
    )
    .option("--online", "also call each remote hook's /health");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((flags: ValidateFlags) => validate(ctx, flags));
}

function summary(problems: Problem[], hooks: number): string {
  return problemsSummary(
    problems,
    `hooks validate: ${plural(problems.length, "problem")} in ${plural(hooks, "hook")}`,
  );
}

async function validate(ctx: CliContext, flags: ValidateFlags): Promise<void> {
  let read;
  try {
    read = await readDeclaration(ctx);
  } catch (error) {
    if (flags.format === "json") {
      const problems = error instanceof ProblemsError
        ? error.problems
        : [{ message: messageOf(error) }];
      ctx.write(toJson({ ok: false, config: problems[0]?.file ?? null, hooks: [], problems }));
    }
    throw error;
  }
  const { loaded, decl } = read;
  const { preflight } = await import("./_preflight.ts");
  const reports = await preflight(decl, { env: ctx.env, online: flags.online === true });
  const problems = reports.flatMap((r) => r.problems);
  const ok = problems.length === 0;
  const circuits = await readCircuits(loaded.config.state.root, reports.map((r) => r.name));
  if (flags.format === "json") {
    const hooks = reports.map((r) => ({ ...r, circuit: circuits.get(r.name)! }));
    ctx.write(toJson({ ok, config: loaded.path, online: flags.online === true, hooks }));
  } else {
    for (const r of reports) {
      println(ctx, line(r));
      const c: CircuitView = circuits.get(r.name)!;
      if (c.state !== "closed") println(ctx, `      circuit ${circuitText(r.name, c)}`);
    }
    if (ok) println(ctx, okLine(reports, flags.online === true));
  }
  if (!ok) {
    throw new ProblemsError(problems, summary(problems, reports.filter((r) => !r.ok).length));
  }
}

function line(r: HookReport): string {
  const status = !r.enabled ? "skip" : r.ok ? "ok" : "FAIL";
  const points = r.points?.length === POINT_NAMES.length
    ? "; called at every point"
    : r.points?.length
    ? `; called at ${r.points.join(", ")}`
    : "";
  const what = r.ok ? r.checked.join("; ") + points : `${r.problems.length} problem(s), below`;
  return `${status.padEnd(5)} ${r.name} (${r.kind}): ${what}`;
}

function okLine(reports: HookReport[], online: boolean): string {
  const on = reports.filter((r) => r.enabled).length;
  const off = reports.length - on;
  const remotes = reports.filter((r) => r.enabled && r.kind === "remote").length;
  const notes = [
    ...(off ? [`${off} disabled, not loaded`] : []),
    ...(remotes && !online ? ["remotes not contacted; add --online to call their /health"] : []),
  ];
  return `ok: ${plural(on, "hook")}` + (notes.length ? ` (${notes.join("; ")})` : "");
}
