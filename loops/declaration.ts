/**
 * The config's `loops:` read strictly (a first cut: the built-ins only; the strict reading
 * follows).
 *
 * @module
 */
import { ProblemsError } from "../errors.ts";
import { BUILTIN_LOOPS } from "./builtin.ts";
import type { LoopSet } from "./types.ts";

/** Options for {@linkcode parseLoops}. */
export interface ParseLoopsOptions {
  /** The config file, as problems name it. */
  file?: string;
  /** Line and column of a key path (`["loops", "review", "nodes"]`), from the config loader. */
  locate?: (path: (string | number)[]) => { line: number; col: number } | undefined;
}

/** The built-ins and the config's `loops:`. Throws `ProblemsError` with every problem. */
export function parseLoops(value: unknown, opts: ParseLoopsOptions): LoopSet {
  if (value === undefined || value === null) return BUILTIN_LOOPS;
  throw new ProblemsError([{
    ...(opts.file ? { file: opts.file } : {}),
    message: "loops: not read yet",
  }]);
}
