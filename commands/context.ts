/**
 * What a command is handed: where to print, the environment, the working directory and the
 * global flags. Commands never touch `Deno.stdout` or `Deno.env` directly, so tests can drive
 * them in-process and so the daemon can hand them a fake clock or a temp state root later.
 *
 * @module
 */
import type { EnvReader } from "../config/mod.ts";
import { type Colour, colour } from "../terminal.ts";

/** The input and output a command uses. */
export interface CliContext {
  /** Writes text to stdout (no newline added). */
  write(text: string): void;
  /** Writes text to stderr (no newline added). */
  warn(text: string): void;
  /** Reads an environment variable. */
  env: EnvReader;
  /** The working directory the command resolves relative flags against. */
  cwd: string;
  /** The global `--config/-c` flag, when given. */
  configFlag(): string | undefined;
  /**
   * Resolves when the user interrupts (SIGINT/SIGTERM); used by `--follow` and daemons. The
   * signal handlers are installed on the first call only, so other commands die on Ctrl+C as usual.
   */
  interrupted(): Promise<void>;
  /**
   * The colours for text written to `stream`: on only when that stream is a terminal, `NO_COLOR`
   * is unset or empty and `--no-color` was not given. Absent: no colour.
   */
  colour?(stream: "stdout" | "stderr"): Colour;
}

/** The colours `ctx` allows on `stream` (none when it says nothing). */
export function colourOf(ctx: CliContext, stream: "stdout" | "stderr"): Colour {
  return ctx.colour?.(stream) ?? colour(false);
}

/** Prints one line to stdout. */
export function println(ctx: CliContext, line = ""): void {
  ctx.write(line + "\n");
}

/** A context that prints nothing and reads no environment: for building the program to inspect it. */
export function silentContext(): CliContext {
  return {
    write: () => {},
    warn: () => {},
    env: () => undefined,
    cwd: "/",
    configFlag: () => undefined,
    interrupted: () => new Promise(() => {}),
  };
}
