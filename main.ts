/**
 * The-loop's entry point: parse argv, dispatch, and map errors to exit codes. Only here do
 * errors become exit codes: 0 = success, 1 = failure, 2 = usage.
 *
 * @module
 */
import { type Command, CommanderError } from "commander";
import { buildProgram } from "./commands/mod.ts";
import type { CliContext } from "./commands/context.ts";
import { ProblemsError, UsageError } from "./errors.ts";
import { colour, colourWanted, visible } from "./terminal.ts";

const encoder = new TextEncoder();

/** Exit code for an error thrown by a command or by argument parsing. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
    // "commander.help": no subcommand given; the help went to stderr already
    return 2;
  }
  return error instanceof UsageError ? 2 : 1;
}

/**
 * The one-line (or, for a list of problems, one-line-each) message printed for an error.
 * `helpFor` names the help that fits, e.g. `the-loop events --help`.
 */
export function messageFor(error: unknown, helpFor = "the-loop --help"): string {
  if (error instanceof CommanderError) {
    // commander: "error: unknown command 'evnts'\n(Did you mean events?)" → one line
    const text = error.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " ")
      .replace(/\(Did you mean/, "(did you mean").replace(/\.$/, "");
    return `the-loop: ${text}; see '${helpFor}'`;
  }
  if (error instanceof ProblemsError) return error.message;
  if (error instanceof Error) return `the-loop: ${error.message}`;
  return `the-loop: ${String(error)}`;
}

/** The `--help` of the deepest command `args` reached, e.g. `the-loop hooks test --help`. */
function helpCommandFor(program: Command, args: string[]): string {
  const path = ["the-loop"];
  let cmd = program;
  for (const arg of args) {
    if (arg.startsWith("-")) continue;
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) break;
    path.push(sub.name());
    cmd = sub;
  }
  return [...path, "--help"].join(" ");
}

/** Runs the CLI with `args`; resolves to the process exit code. */
export async function run(args: string[], ctx: CliContext): Promise<number> {
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(args, { from: "user" });
    return 0;
  } catch (error) {
    const code = exitCodeFor(error);
    const helpShown = error instanceof CommanderError && error.code === "commander.help";
    // An error's text may be a hook's, a server's or GitHub's: its control characters (a
    // carriage return over the line, a colour, a clipboard write) are shown, not obeyed.
    if (code !== 0 && !helpShown) {
      // `--no-color` may not have been parsed when parsing is what failed: looked for in argv
      const c = args.includes("--no-color") ? colour(false) : ctx.colour?.("stderr");
      const text = visible(messageFor(error, helpCommandFor(program, args)));
      ctx.warn((c?.enabled ? text.replace(/^the-loop:/, c.red("the-loop:")) : text) + "\n");
    }
    if (
      !(error instanceof CommanderError) && !(error instanceof UsageError) &&
      !(error instanceof ProblemsError) && Deno.env.get("THE_LOOP_DEBUG")
    ) {
      ctx.warn(visible(String((error as Error)?.stack ?? error)) + "\n");
    }
    return code;
  }
}

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
  } catch (error) {
    // `the-loop events … | head`: the reader has gone; stop quietly, as Unix tools do
    if (error instanceof Deno.errors.BrokenPipe) Deno.exit(0);
    throw error;
  }
}

function processContext(): CliContext {
  let interrupted: Promise<void> | undefined;
  return {
    write: (s) => writeAll(Deno.stdout, s),
    warn: (s) => writeAll(Deno.stderr, s),
    env: (name) => Deno.env.get(name),
    cwd: Deno.cwd(),
    configFlag: () => undefined,
    colour: (stream) =>
      colour(colourWanted({
        isTerminal: (stream === "stdout" ? Deno.stdout : Deno.stderr).isTerminal(),
        noColorEnv: Deno.env.get("NO_COLOR"),
      })),
    interrupted: () =>
      interrupted ??= new Promise<void>((resolve) => {
        for (const sig of ["SIGINT", "SIGTERM"] as const) {
          try {
            Deno.addSignalListener(sig, () => resolve());
          } catch { /* SIGTERM is not supported on Windows */ }
        }
      }),
  };
}

if (import.meta.main) {
  if (Deno.args[0] === "__hook-host") {
    // hidden: a module hook's child process (isolation: process); never returns
    await (await import("./lifecycle/mod.ts")).runHookHost();
  }
  const code = await run(Deno.args, processContext());
  Deno.exit(code);
}
