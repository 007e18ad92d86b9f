/**
 * The process-wide seam, mirroring the event log: one {@linkcode Runner} per process. Call sites
 * build a context, `await run(point, ctx)` and act on its decisions; `run` never throws.
 *
 * - Daemons call {@linkcode configureFromConfig} with `strict: true` at start and exit 1 on the
 *   `ProblemsError` it throws (a daemon with a declaration that cannot load does not start).
 *   They also pass `persistCircuits: true`, so a hook's open circuit is written under
 *   `state.root` where `the-loop hooks` shows it and `the-loop hooks reset` re-arms it.
 * - Configuring again (a reload) re-arms every circuit the previous runner had open (and any
 *   recorded open under `state.root` when persisting): `hooks.circuit_closed` {after: reload}.
 * - One-shot commands may call it with `strict: false` (a failure installs an empty runner,
 *   records `hooks.load_failed` and warns), or hand {@linkcode configureLazily} a loader that
 *   runs on the first `run` only.
 * - An unconfigured process runs no hooks: `run` returns the context unchanged. The seam does
 *   not resolve the CLI config itself (that would pull the commands' config resolution into the
 *   lifecycle floor); the process that wants lazy loading says how with `configureLazily`.
 *
 * @module
 */
import { messageOf, ProblemsError, problemsSummary } from "../errors.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { EventSink } from "../events/mod.ts";
import type { ContextOf } from "./sdk/contract.ts";
import { parseDeclaration } from "./declaration/mod.ts";
import { loadExecutors } from "./loader.ts";
import type { PointName } from "./sdk/points.ts";
import { Runner, type RunOptions } from "./runner.ts";
import { FileCircuitStore } from "./circuit_store.ts";
import { secretsOf } from "./secrets.ts";
import { engine as says } from "./_messages.ts";

let current: Runner | undefined;
let lazy: { load: () => Promise<Runner>; sink: EventSink; warn: (m: string) => void } | undefined;
let pending: Promise<void> | undefined;

/** Installs `runner` as the process's runner (closing the one it replaces). */
export function configure(runner: Runner): void {
  const old = current;
  current = runner;
  lazy = undefined;
  pending = undefined;
  if (old && old !== runner) void old.close();
}

/** The installed runner, if any. */
export function configured(): Runner | undefined {
  return current;
}

/** Options for {@linkcode configureFromConfig}. */
export interface ConfigureOptions {
  /** true: a failure throws `ProblemsError` (daemons refuse to start). */
  strict: boolean;
  /** Where `hooks.*` events go. */
  sink: EventSink;
  /** Reads an environment variable (HOME, tokens at call time, command pass-throughs). */
  env: (name: string) => string | undefined;
  /** Where warnings go; default stderr. */
  warn?: (message: string) => void;
  /**
   * Daemons: write each open circuit to `<state.root>/hooks/circuits/<name>.json` (for `the-loop
   * hooks` and `hooks reset`), and re-arm the ones recorded there. Off for one-shot commands, so
   * they neither show nor re-arm a daemon's circuits as their own.
   */
  persistCircuits?: boolean;
}

/**
 * Parses `hooks:` from the loaded config, loads every enabled hook and installs the runner.
 * Emits `hooks.loaded` {count, names} or `hooks.load_failed` {error, strict}. Strict: throws
 * {@linkcode ProblemsError} on failure (the previous runner stays). Non-strict: installs an
 * empty runner, warns, and returns it.
 */
export async function configureFromConfig(
  loaded: LoadedConfig,
  opts: ConfigureOptions,
): Promise<Runner> {
  const warn = opts.warn ?? ((m: string) => console.error(m));
  try {
    const decl = parseDeclaration(loaded.config.hooks, {
      ...(loaded.path ? { file: loaded.path } : {}),
      baseDir: loaded.baseDir,
      locate: (k) => loaded.locate(k),
      home: opts.env("HOME"),
    });
    const { entries, problems } = await loadExecutors(decl, { env: opts.env, strict: opts.strict });
    if (problems.length > 0) {
      throw new ProblemsError(problems, problemsSummary(problems, "hooks could not be loaded"));
    }
    const runner = new Runner({
      entries,
      sink: opts.sink,
      warn,
      secrets: secretsOf(decl, opts.env),
      ...(opts.persistCircuits
        ? { circuitStore: new FileCircuitStore(loaded.config.state.root) }
        : {}),
    });
    const previous = current;
    configure(runner);
    await runner.rearmAfterReload(previous);
    safeEmit(opts.sink, "hooks.loaded", { count: runner.names.length, names: runner.names });
    return runner;
  } catch (err) {
    // nothing left to scrub: the loader scrubbed each hook's load problem (a hook may say a
    // value it was granted while failing), and a declaration holds names of variables only
    const error = messageOf(err);
    safeEmit(opts.sink, "hooks.load_failed", { error, strict: opts.strict });
    if (opts.strict) throw err;
    warn(says.runningWithout(error));
    const empty = new Runner({ entries: [], sink: opts.sink, warn });
    configure(empty);
    return empty;
  }
}

/**
 * Defers loading to the first {@linkcode run}: `load` (typically resolve the CLI config, then
 * `configureFromConfig(…, {strict: false})`) runs once. If it throws, an empty runner is
 * installed and `hooks.load_failed` {strict: false} recorded, and the operation proceeds.
 * Resolves once the runner it replaces (if any) is closed.
 */
export async function configureLazily(
  load: () => Promise<Runner>,
  opts: { sink: EventSink; warn?: (message: string) => void },
): Promise<void> {
  await reset();
  lazy = { load, sink: opts.sink, warn: opts.warn ?? ((m: string) => console.error(m)) };
}

/**
 * Whether a hook of the process's runner handles `point`: false only when the runner is known
 * and none does (a lazy load not yet run answers true). Never throws.
 */
export function handles(point: PointName): boolean {
  try {
    return current ? current.handles(point) : lazy !== undefined;
  } catch {
    return true;
  }
}

/**
 * Runs `point`'s hooks over `ctx`; returns `ctx` itself. Never throws. `opts.resume` goes on
 * with a chain a suspension stopped (`suspensionOf(ctx)` says when one did).
 */
export async function run<P extends PointName>(
  point: P,
  ctx: ContextOf<P>,
  opts?: RunOptions,
): Promise<ContextOf<P>> {
  try {
    if (!current && lazy) await (pending ??= loadLazily(lazy));
    return current ? await current.run(point, ctx, opts) : ctx;
  } catch (err) {
    console.error(says.unexpected(point, messageOf(err)));
    return ctx;
  }
}

/**
 * `text` with the process runner's secret values scrubbed (the declaration's tokens, header
 * values and passed-through variables); as it is when no runner is configured. Never throws.
 */
export function redactSecrets(text: string): string {
  try {
    return current ? current.redact(text) : text;
  } catch {
    return text;
  }
}

/**
 * Runs a lazy load. Its runner is installed only if nothing changed meanwhile (no `configure`,
 * `reset` or new `configureLazily`); otherwise it is stale and closed, so its workers and
 * processes do not outlive it. A load that installed its runner itself (through
 * `configureFromConfig`) is left as it is.
 */
async function loadLazily(l: NonNullable<typeof lazy>): Promise<void> {
  let runner: Runner;
  try {
    runner = await l.load();
  } catch (err) {
    const error = messageOf(err);
    safeEmit(l.sink, "hooks.load_failed", { error, strict: false });
    l.warn(says.runningWithout(error));
    if (!current && lazy === l) {
      configure(new Runner({ entries: [], sink: l.sink, warn: l.warn }));
    }
    return;
  }
  if (current === runner) return;
  if (!current && lazy === l) configure(runner);
  else await runner.close();
}

/** Forgets the runner (closing its executors) and any pending lazy load. */
export async function reset(): Promise<void> {
  const old = current;
  current = undefined;
  lazy = undefined;
  pending = undefined;
  if (old) await old.close();
}

function safeEmit(sink: EventSink, event: string, fields: Record<string, unknown>): void {
  try {
    sink.emit(event, fields);
  } catch { /* the log must not decide whether hooks load */ }
}
