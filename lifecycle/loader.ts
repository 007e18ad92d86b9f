/**
 * Builds an executor for every ENABLED entry of a parsed declaration with the three factories:
 * a module is bundled and started in its sandbox, a remote and a command are prepared (nothing
 * is contacted or run). Every failure becomes a {@linkcode Problem} naming the entry.
 *
 * @module
 */
import type { Problem } from "../errors.ts";
import { renderPath } from "./_declaration_check.ts";
import type { Declaration, Entry } from "./declaration.ts";
import type { Executor } from "./executor.ts";
import type { RunnerEntry } from "./runner.ts";
import { loadModuleHook } from "./module/mod.ts";
import { createRemoteExecutor } from "./remote/mod.ts";
import { createCommandExecutor } from "./command/mod.ts";

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
  settled.forEach((s, i) => {
    const entry = enabled[i];
    if (s.status === "fulfilled") entries.push({ entry, executor: s.value });
    else problems.push(problemOf(decl, entry, s.reason));
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
      });
    case "remote": {
      if (opts.strict && e.tokenEnv && !opts.env(e.tokenEnv)) {
        throw new Error(
          `environment variable ${e.tokenEnv} (tokenEnv) is not set; export it before starting ` +
            `the-loop, or every call of this hook would fail`,
        );
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
        env: e.env,
        maxOutputBytes: e.maxOutputBytes,
        on: e.on,
        getEnv: opts.env,
      });
      if (opts.strict) await ex.check();
      return ex;
    }
  }
}

function problemOf(decl: Declaration, entry: Entry, err: unknown): Problem {
  const raw = err instanceof Error ? err.message : String(err);
  const named = raw.startsWith(`hook "${entry.name}"`) || raw.startsWith(`hook ${entry.name}`);
  return {
    ...(decl.file !== undefined ? { file: decl.file } : {}),
    ...(entry.line !== undefined ? { line: entry.line, col: entry.col } : {}),
    path: renderPath(["hooks", entry.index]),
    message: named ? raw : `hook "${entry.name}": ${raw}`,
  };
}
