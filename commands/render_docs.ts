/**
 * Generates `docs/cli.md`, the CLI reference, from the program's own `--help` texts, so the
 * reference cannot drift from the code (`commands/render_docs_test.ts` fails when it does).
 * Run `deno task docs` to regenerate.
 *
 * @module
 */
import type { Command } from "commander";
import { formatMarkdown } from "../tools/fmt_markdown.ts";
import { silentContext } from "./context.ts";
import { buildProgram } from "./mod.ts";

const HEADER = `# CLI reference

Every command of \`the-loop\`, with the help text it prints (\`the-loop <command> --help\`).
Generated from the code by \`deno task docs\`; a test fails when this file and the code disagree.

Exit codes, for every command: \`0\` success, \`1\` failure (the message says what failed and what
to do), \`2\` usage error (an unknown command or flag, a bad flag value). Errors go to stderr as one
line each; data goes to stdout. Every command that prints data takes \`--format\`.

Global flag: \`-c, --config <path>\` (before the command) names the CLI config file, overriding
\`$THE_LOOP_CLI_CONFIG\`, \`./.the-loop/cli-config.yaml\` and \`~/.the-loop/cli-config.yaml\`
(see [config.md](config.md)). Global flag: \`--no-color\` turns colour off (so does a non-empty
\`$NO_COLOR\`; output that is not a terminal never has colour). \`the-loop completions bash|zsh|fish\`
prints a shell completion script.
`;

function walk(cmd: Command, path: string[], out: string[]): void {
  cmd.configureHelp({ ...cmd.configureHelp(), helpWidth: 100 });
  cmd.configureOutput({ ...cmd.configureOutput(), getOutHasColors: () => false });
  const name = ["the-loop", ...path].join(" ");
  out.push(`\n## \`${name}\`\n\n\`\`\`text\n${cmd.helpInformation().trimEnd()}\n\`\`\`\n`);
  for (const sub of cmd.commands) {
    // a hidden command (`demo agent`, run by the daemon) is no one's to type
    if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
    walk(sub, [...path, sub.name()], out);
  }
}

/** The full text of `docs/cli.md`. */
export function renderCliDocs(): string {
  const program = buildProgram(silentContext());
  const out: string[] = [HEADER];
  walk(program, [], out);
  return out.join("");
}

if (import.meta.main) {
  const target = new URL("../docs/cli.md", import.meta.url);
  await Deno.writeTextFile(target, await formatMarkdown(renderCliDocs()));
  console.log(`wrote ${target.pathname}`);
}
