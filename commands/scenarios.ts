/**
 * `the-loop scenarios [--root DIR] [--glob PATTERN …] [--format table|markdown|json]`: the
 * Gherkin-style scenarios written in the comments of a repository's tests (`Feature:`,
 * `Scenario:` / `Scenario Outline:`, `Given`/`When`/`Then`/`And`/`But`, `Requirement:`; how
 * they are read: `repo/scenarios/parse.ts`), each at the `file:line` of its `Scenario:`.
 *
 * The root is `--root`, else the top of the git repository the working directory is in, else
 * the working directory. The files read are those `--glob` (repeatable) matches, else those
 * `testing.integrationTestGlobs` in the root's `.the-loop/harness-config.yaml` matches, else the
 * common test layouts (`repo/scenarios/find.ts`'s `DEFAULT_GLOBS`).
 *
 * | format     | prints                                                                                          |
 * | ---------- | ----------------------------------------------------------------------------------------------- |
 * | `table`    | `Location, Feature, Scenario, Requirement, Steps`, every cell terminal-safe; none: `(no scenarios found …)` on stderr |
 * | `markdown` | the same as a GitHub-flavoured table (for a PR briefing), every cell escaped; none: `No scenarios found …` |
 * | `json`     | the envelope with `root`, `globs`, `globsFrom`, `harnessConfig`, `filesScanned` and `scenarios` (each with its steps); `schema/cli/scenarios.json` |
 *
 * A root that is not a folder, a harness config that is not YAML or whose
 * `testing.integrationTestGlobs` is not a list of globs, an unknown `--format`: a usage error
 * (exit 2, no JSON). A file that cannot be read is skipped with a warning on stderr.
 *
 * @module
 */
import type { Command } from "commander";
import { ProblemsError, UsageError } from "../errors.ts";
import { readHarnessConfig, repoRoot } from "../repo/harness_config.ts";
import { chooseGlobs, findScenarios, type Scenario } from "../repo/scenarios/mod.ts";
import { visible } from "../terminal.ts";
import type { CliContext } from "./context.ts";
import { printEnvelope } from "./_envelope.ts";
import { formatOption, table } from "./_output.ts";

interface ScenariosFlags {
  root?: string;
  glob?: string[];
  format: "table" | "markdown" | "json";
}

/** The table's header (table and markdown). */
const COLUMNS = ["Location", "Feature", "Scenario", "Requirement", "Steps"];

/** Adds `scenarios` to the program. */
export function register(program: Command, ctx: CliContext): void {
  const cmd = program.command("scenarios")
    .description(
      "list the Gherkin-style scenarios (Feature:, Scenario:, Given/When/Then) in the tests' comments",
    )
    .option("--root <dir>", "the repository (default: the git repository's top, else the cwd)")
    .option(
      "--glob <pattern>",
      "the test files to read, e.g. 'tests/**' (repeatable; default: the harness config's " +
        "testing.integrationTestGlobs, else common test layouts)",
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    );
  formatOption(cmd, ["table", "markdown", "json"], "table");
  cmd.action((flags: ScenariosFlags) => listScenarios(ctx, flags));
}

async function listScenarios(ctx: CliContext, flags: ScenariosFlags): Promise<void> {
  const root = await repoRoot({ root: flags.root, cwd: ctx.cwd });
  let config;
  try {
    config = await readHarnessConfig(root);
  } catch (error) {
    // a harness config that cannot be read is a misconfiguration: the command line's to fix
    if (error instanceof ProblemsError) throw new UsageError(error.message);
    throw error;
  }
  const { globs, source } = chooseGlobs(flags.glob ?? [], config);
  // a warning names a file: its name is the repository's text, made terminal-safe too
  const warn = (m: string) => ctx.warn(`the-loop: ${visible(m, { multiline: false })}\n`);
  const found = await findScenarios({ root, globs, warn });
  const { scenarios } = found;
  if (flags.format === "json") {
    printEnvelope(ctx, "scenarios", { ok: true, config: null }, {
      root,
      globs,
      globsFrom: source,
      harnessConfig: config?.path ?? null,
      filesScanned: found.filesScanned,
      scenarios,
    });
    return;
  }
  const none = `no scenarios found in ${found.filesScanned} files under ${root} ` +
    `(globs: ${globs.join(", ")})`;
  if (flags.format === "markdown") {
    ctx.write(
      scenarios.length === 0 ? `${markdownCell(upperFirst(none))}\n` : markdownTable(
        COLUMNS,
        scenarios.map((s) => cells(s).map(markdownCell)),
      ),
    );
    return;
  }
  if (scenarios.length === 0) {
    ctx.warn(`(${visible(none, { multiline: false })})\n`);
    return;
  }
  const cell = (s: string) => visible(s, { multiline: false }) || "-";
  ctx.write(table(COLUMNS, scenarios.map((s) => cells(s).map(cell))));
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A scenario's cells, as found (each format makes them safe its own way). */
function cells(s: Scenario): string[] {
  return [
    `${s.file}:${s.line}`,
    s.feature ?? "",
    s.outline ? `${s.scenario} (outline)` : s.scenario,
    s.requirement ?? "",
    String(s.steps.length),
  ];
}

/**
 * A cell of a GitHub-flavoured table: control characters made visible, HTML's `& < >` as
 * entities, and every character Markdown would act on (`\ | * _ [ ] ~ ` and `` ` ``)
 * escaped, so a file's text prints as text; empty: `-`.
 */
export function markdownCell(text: string): string {
  const shown = visible(text, { multiline: false })
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/[\\|*_[\]~`]/g, (ch) => `\\${ch}`);
  return shown === "" ? "-" : shown;
}

/** A GitHub-flavoured Markdown table of cells already escaped. */
export function markdownTable(headers: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n") + "\n";
}
