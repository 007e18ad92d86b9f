/**
 * The error types every floor may throw. Only `main.ts` turns them into exit codes:
 * a {@linkcode UsageError} exits 2, anything else exits 1.
 *
 * @module
 */

/** The command line was wrong: an unknown command or flag, a bad flag value. Exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** One problem found in a file the user wrote, located as precisely as we can. */
export interface Problem {
  /** The file the problem is in, as the user named it (or resolved). */
  file?: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  col?: number;
  /** The key path, e.g. `polling.intervalSeconds` or `hooks[1].on[0]`. */
  path?: string;
  /** What is wrong and, where it helps, what to do. */
  message: string;
}

/** Renders a problem as `file:line:col: path: message`, leaving out what is unknown. */
export function formatProblem(p: Problem): string {
  const where = p.file ? [p.file, p.line, p.col].filter((x) => x !== undefined).join(":") : "";
  return [where, p.path, p.message].filter((x) => x).join(": ");
}

/** `1 problem`, `2 problems`: a count and its noun, plural when it is not one. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * `heading:` and below it every problem, each of its lines indented by two spaces:
 *
 * ```ts
 * problemsSummary(problems, `${plural(problems.length, "problem")} in the hooks declaration`);
 * // 2 problems in the hooks declaration:
 * //   cli-config.yaml:3:5: hooks[0]: needs a name
 * //   cli-config.yaml:9:9: hooks[1].on[0]: "start" is not a lifecycle point (…)
 * ```
 */
export function problemsSummary(problems: readonly Problem[], heading: string): string {
  const lines = problems.flatMap((p) => formatProblem(p).split("\n"));
  return `${heading}:\n` + lines.map((line) => `  ${line}`).join("\n");
}

/** Orders problems by where they are in their file (line, then column; unlocated first). */
export function byPosition(a: Problem, b: Problem): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0);
}

/** A file the user wrote is invalid; carries every problem found, not just the first. Exit 1. */
export class ProblemsError extends Error {
  override name = "ProblemsError";
  readonly problems: Problem[];
  constructor(problems: Problem[], summary?: string) {
    super(summary ?? problems.map(formatProblem).join("\n"));
    this.problems = problems;
  }
}

/** What an error says: an `Error`'s message, anything else as text. Never throws. */
export function messageOf(err: unknown): string {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return "an error that cannot be described";
  }
}
