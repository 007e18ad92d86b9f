/**
 * `the-loop hooks test <name> --point P --context ctx.json [--expect decisions.json]`: runs ONE
 * declared hook against a sample context exactly as the daemon would (same loader, sandbox,
 * timeout and answer checks; see `_run_one.ts`) and prints the decisions it made and its
 * `hooks.ran` record. Exit 1 when the hook failed or timed out, or a decision differs from
 * `--expect`. A disabled hook is tested anyway, with a note.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { type CliContext, colourOf } from "../context.ts";
import { formatOption, toJson } from "../_output.ts";
import { configRef, jsonOnFailure } from "../_envelope.ts";
import { readDeclaration } from "../_declaration.ts";
import { buildContext, parseExpect, parsePoint, readJsonInput } from "./_input.ts";
import { compare, hookFailed, jsonOf, printText, type Shown } from "./_test_report.ts";
import type { RunOneResult } from "./_run_one.ts";
import type { Declaration, Entry } from "../../lifecycle/mod.ts";
import type { Context, PointName } from "../../lifecycle/sdk/mod.ts";
import { visible } from "../../terminal.ts";
import { didYouMean } from "../../config/mod.ts";

interface TestFlags {
  point: string;
  context: string;
  expect?: string;
  format: "text" | "json";
  verbose?: boolean;
}

/** Registers `hooks test`. */
export function register(hooks: Command, ctx: CliContext): void {
  const cmd = hooks.command("test")
    .description(
      "run one hook against a sample context, as the daemon would, and show its decisions",
    )
    .argument("<name>", "the hook's name in hooks:")
    .addOption(
      new Option("--point <point>", "the lifecycle point to call it at").makeOptionMandatory(),
    )
    .addOption(
      new Option("--context <file>", "JSON file of the context's fields ('-': stdin)")
        .makeOptionMandatory(),
    )
    .option("--expect <file>", "JSON object of decisions the result must hold (exit 1 otherwise)")
    .option("--verbose", "text: also show the hook's full error and its hooks.ran telemetry");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((name: string, flags: TestFlags) =>
    // a run that fails before the hook is called (config, name, --context) still prints JSON
    jsonOnFailure(
      ctx,
      { json: flags.format === "json", command: "hooks test", fields: { hook: name } },
      (ctx) => testHook(ctx, name, flags),
    )
  );
}

async function testHook(ctx: CliContext, name: string, flags: TestFlags): Promise<void> {
  const point = parsePoint(flags.point);
  const { loaded, decl } = await readDeclaration(ctx);
  const entry = findEntry(decl, name, loaded.path);
  const { context, expect } = await readInputs(ctx, point, flags);
  if (!entry.enabled) {
    ctx.warn(
      colourOf(ctx, "stderr").dim(
        `the-loop: note: hook ${name} is disabled (enabled: false); the daemon does not ` +
          `call it, but it is tested here as if enabled`,
      ) + "\n",
    );
  }
  const { runOne } = await import("./_run_one.ts");
  // The runner's warnings about this one call repeat the failure the verdict reports: held back
  // and shown only with --verbose (or printed when the hook did not fail: they are news then).
  const warnings: string[] = [];
  const result = await runOne({
    decl,
    entry: { ...entry, enabled: true },
    point,
    context,
    env: ctx.env,
    log: { path: loaded.config.eventLog.path, enabled: loaded.config.eventLog.enabled },
    // the runner's warnings quote the hook's error: shown, never obeyed, by the terminal
    warn: (m) => warnings.push(`the-loop: ${visible(m)}\n`),
  });
  if (flags.verbose || !hookFailed(result)) { for (const w of warnings) ctx.warn(w); }
  const mismatches = expect ? compare(expect, result.after) : [];
  const shown: Shown = { name, kind: entry.kind, point, expect, mismatches };
  const failure = verdict(result, shown, flags);
  if (flags.format === "json") {
    ctx.write(toJson(jsonOf(result, shown, { config: configRef(loaded), failure })));
  } else printText(ctx, result, shown, { verbose: flags.verbose === true });
  if (failure) throw failure;
}

/** The declared hook called `name`; an error listing the declared ones otherwise. */
function findEntry(decl: Declaration, name: string, configPath: string | null): Entry {
  const entry = decl.entries.find((e) => e.name === name);
  if (entry) return entry;
  const names = decl.entries.map((e) => e.name);
  const guess = didYouMean(name, names);
  throw new Error(
    `no hook named "${name}" in ${configPath ?? "the config (no config file found)"}` +
      (guess ? ` (did you mean ${guess}?)` : "") + "; " +
      (names.length ? `declared: ${names.join(", ")}` : "no hooks are declared"),
  );
}

/** The sample context (`--context`) and the expected decisions (`--expect`), checked. */
async function readInputs(ctx: CliContext, point: PointName, flags: TestFlags): Promise<{
  context: Context;
  expect?: Record<string, unknown>;
}> {
  const input = await readJsonInput(ctx, "--context", flags.context);
  const context = buildContext(point, input.value, input.label);
  if (flags.expect === undefined) return { context };
  const e = await readJsonInput(ctx, "--expect", flags.expect);
  return { context, expect: parseExpect(point, e.value, e.label) };
}

/** The error to exit 1 with when the hook failed or timed out, or a decision differs from `--expect`. */
function verdict(result: RunOneResult, s: Shown, flags: TestFlags): Error | undefined {
  if (hookFailed(result)) {
    // Its first line only: the whole error (a stack, perhaps) is in the report printed above
    // and in the hooks.failed event.
    // without the `hook "x" at point: ` the hook's error may start with: said once already
    const error = String(result.events.find((r) => r.event === "hooks.failed")?.error ?? "")
      .split("\n")[0].trim().replace(`hook ${JSON.stringify(s.name)} at ${s.point}: `, "");
    return new Error(
      `hooks test: hook ${s.name} ${
        result.ran.disposition === "timed_out" ? "timed out" : "failed"
      } at ${s.point}` +
        (error ? `: ${error}` : ""),
    );
  }
  if (s.mismatches.length > 0) {
    return new Error(
      `hooks test: hook ${s.name} at ${s.point}: ${s.mismatches.map((m) => m.field).join(", ")} ` +
        `differ${s.mismatches.length === 1 ? "s" : ""} from --expect ${flags.expect}`,
    );
  }
  return undefined;
}
