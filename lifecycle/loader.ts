/**
 * Builds an executor for every ENABLED entry of a parsed declaration with the three factories:
 * a module is bundled and started in its sandbox, a remote and a command are prepared (nothing
 * is contacted or run). Every failure becomes a {@linkcode Problem} naming the entry, its text
 * redacted of the declaration's secret values (`secrets.ts`).
 *
 * @module
 */
import { formatKeyPath } from "../config/mod.ts";
import { messageOf, type Problem } from "../errors.ts";
import type { Declaration, Entry } from "./declaration/mod.ts";
import { DEFAULT_LOAD_TIMEOUT_MS, type Executor, HookError, HookFailure } from "./executor.ts";
import type { RunnerEntry } from "./runner.ts";
import { redactor, secretsOf } from "./secrets.ts";
import { aboutHook, tokenUnsetAtLoad } from "./_messages.ts";
import { createCommandExecutor, createRemoteExecutor, loadModuleHook } from "./executors/mod.ts";

/** Options for {@linkcode loadExecutors}. */
export interface LoadExecutorsOptions {
  /** Reads an environment variable (a token at call time, variables passed to commands). */
  env: (name: string) => string | undefined;
  /**
   * Strict (daemons at start, `hooks validate`): also fail when a remote's `tokenEnv` is unset or
   * a command's program is missing or not executable — things that would otherwise fail every
   * call later. Non-strict loads them and lets the calls fail.
   */
  strict: boolean;
}

/** What {@linkcode loadExecutors} built. */
export interface LoadedExecutors {
  /** One per enabled entry, in declaration order; empty when there are problems. */
  executors: Executor[];
  /** The same, paired with their entries (what a {@linkcode Runner} takes). */
  entries: RunnerEntry[];
  /** Every entry that could not be loaded; when non-empty, whatever did load was closed. */
  problems: Problem[];
}

/** Loads every enabled entry (concurrently; the order stays the declaration's). */
export async function loadExecutors(
  decl: Declaration,
  opts: LoadExecutorsOptions,
): Promise<LoadedExecutors> {
  const enabled = decl.entries.filter((e) => e.enabled);
  const settled = await Promise.allSettled(enabled.map((e) => loadOne(e, opts)));
  const problems: Problem[] = [];
  const entries: RunnerEntry[] = [];
  // A hook that fails to load may say a value it was granted (a module's env grant); the
  // problem is printed and recorded, so it is redacted like every error the engine writes.
  const redact = redactor(secretsOf(decl, opts.env));
  settled.forEach((s, i) => {
    const entry = enabled[i];
    if (s.status === "fulfilled") entries.push({ entry, executor: s.value });
    else problems.push(entryProblem(decl, entry, s.reason, redact));
  });
  if (problems.length > 0) {
    await Promise.all(entries.map((e) => e.executor.close().catch(() => {})));
    return { executors: [], entries: [], problems };
  }
  return { executors: entries.map((e) => e.executor), entries, problems };
}

async function loadOne(e: Entry, opts: LoadExecutorsOptions): Promise<Executor> {
  switch (e.kind) {
    case "module":
      return await loadModuleHook({
        name: e.name,
        path: e.path,
        baseDir: e.baseDir,
        exportName: e.exportName,
        options: e.options,
        permissions: e.permissions,
        on: e.on,
        isolation: e.isolation,
        maxMemoryMb: e.maxMemoryMb,
        // a top level gets at least the default load budget, more when its calls may take longer
        loadTimeoutMs: Math.max(e.timeoutSeconds * 1000, DEFAULT_LOAD_TIMEOUT_MS),
      });
    case "remote": {
      if (opts.strict && e.tokenEnv && !opts.env(e.tokenEnv)) {
        throw new HookFailure(tokenUnsetAtLoad({ hook: e.name, kind: "remote" }, e.tokenEnv));
      }
      return createRemoteExecutor({
        name: e.name,
        url: e.url,
        tokenEnv: e.tokenEnv,
        headers: e.headers,
        on: e.on,
        env: opts.env,
      });
    }
    case "command": {
      const ex = createCommandExecutor({
        name: e.name,
        argv: e.argv,
        cwd: e.cwd,
        passEnv: e.env,
        maxOutputBytes: e.maxOutputBytes,
        on: e.on,
        env: opts.env,
      });
      if (opts.strict) await ex.check();
      return ex;
    }
  }
}

/**
 * A problem with one entry, located at `hooks[i]` (`file:line:col` when known). `problem` is a
 * message or what the entry's load threw: a hook error that names this hook is its message as
 * it is, anything else is prefixed with `hook "<name>": ` (a message string, unless it names
 * the hook already). `redact` scrubs secret values from it.
 */
export function entryProblem(
  decl: Declaration,
  entry: Entry,
  problem: unknown,
  redact: (text: string) => string = (t) => t,
): Problem {
  const named = problem instanceof HookError && problem.hook === entry.name;
  const text = redact(messageOf(problem));
  return {
    ...(decl.file !== undefined ? { file: decl.file } : {}),
    ...(entry.line !== undefined ? { line: entry.line, col: entry.col } : {}),
    path: formatKeyPath(["hooks", entry.index]),
    message: named ? text : aboutHook(entry.name, text),
  };
}
