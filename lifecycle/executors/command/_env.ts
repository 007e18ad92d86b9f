/**
 * The minimal environment a command hook runs with: PATH, HOME, the three THE_LOOP_* variables,
 * and exactly the variables its declaration lists. Nothing else of the-loop's environment leaks.
 * (`_run.ts` adds `THE_LOOP_CALL_ID`, a random id of the call by which its processes are found
 * when they are killed.)
 *
 * @module
 */
import { DEFAULT_PATH } from "./_resolve.ts";

/** Options for {@linkcode hookEnv}. */
export interface HookEnvOptions {
  point: string;
  hook: string;
  workItem: string;
  /** The names the declaration passes through. */
  pass: readonly string[];
  /** Reads an environment variable. */
  env: (name: string) => string | undefined;
}

/** Builds the child's whole environment; values are read now, at call time. */
export function hookEnv(opts: HookEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of opts.pass) {
    const v = opts.env(name);
    if (v !== undefined) env[name] = v;
  }
  env.PATH = opts.env("PATH") ?? DEFAULT_PATH;
  const home = opts.env("HOME");
  if (home !== undefined) env.HOME = home;
  env.THE_LOOP_POINT = opts.point;
  env.THE_LOOP_HOOK = opts.hook;
  env.THE_LOOP_WORK_ITEM = opts.workItem;
  return env;
}

/** The ref of `params.work_item`: an object's `ref`, a bare string, or `""`. */
export function workItemRefOf(params: Record<string, unknown>): string {
  const w = params.work_item;
  if (typeof w === "string") return w;
  if (typeof w === "object" && w !== null && typeof (w as { ref?: unknown }).ref === "string") {
    return (w as { ref: string }).ref;
  }
  return "";
}
