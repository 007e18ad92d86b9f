/**
 * Finds the program a command hook names, the way the-loop runs it (no shell): a path with a
 * slash resolves against the config file's directory, a bare name is looked up on PATH.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { HookFailure } from "../../executor.ts";
import { type HookAt, notOnPath, notRunnable } from "../../_messages.ts";

/** The PATH used when the environment has none. */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Why `path` cannot be run, or `undefined` when it is an executable file. */
function whyNotRunnable(path: string): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return "does not exist";
  }
  if (!info.isFile) return "is not a file";
  if (info.mode !== null && (info.mode & 0o111) === 0) return "is not executable (chmod +x it)";
  return undefined;
}

/** Options for {@linkcode resolveProgram}. */
export interface ResolveOptions {
  /** The hook, for the message. */
  at: HookAt;
  /** The config file's directory. */
  cwd: string;
  /** The PATH the hook will run with. */
  path: string;
}

/**
 * Resolves `argv0` to an absolute path of an executable file.
 *
 * @throws {HookFailure} saying where it looked and what is wrong.
 */
export function resolveProgram(argv0: string, opts: ResolveOptions): string {
  if (argv0.includes("/")) {
    const full = isAbsolute(argv0) ? argv0 : resolve(opts.cwd, argv0);
    const why = whyNotRunnable(full);
    if (why) {
      const relative = isAbsolute(argv0) ? undefined : { argv0, cwd: opts.cwd };
      throw new HookFailure(notRunnable(opts.at, full, why, relative));
    }
    return full;
  }
  for (const dir of opts.path.split(":")) {
    if (dir === "") continue;
    const full = join(dir, argv0);
    if (whyNotRunnable(full) === undefined) return full;
  }
  throw new HookFailure(notOnPath(opts.at, argv0, opts.path));
}
