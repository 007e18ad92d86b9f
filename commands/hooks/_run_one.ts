/**
 * Runs ONE declared hook at one point exactly as the daemon would: the real loader (strict, the
 * same bundler and sandbox), a {@linkcode Runner} holding just that entry (the same timeout,
 * answer checks and refusal rules), its events captured in memory AND appended to the
 * configured event log with source `cli`. Everything is closed before it returns.
 *
 * Imported lazily by `test_command.ts`: it pulls in the bundler and the executors.
 *
 * @module
 */
import type { EnvReader } from "../../config/mod.ts";
import { ProblemsError, problemsSummary } from "../../errors.ts";
import { EventLog, type EventRecord, type EventSink, MemorySink } from "../../events/mod.ts";
import { type Context, decisionsOf, POINT_NAMES, type PointName } from "../../lifecycle/sdk/mod.ts";
import {
  type Declaration,
  type Entry,
  loadExecutors,
  misspeltHintFor,
  Runner,
  secretsOf,
  stopBundler,
} from "../../lifecycle/mod.ts";

/** Options for {@linkcode runOne}. */
export interface RunOneOptions {
  decl: Declaration;
  /** The entry to run (the caller enables a disabled one). */
  entry: Entry;
  point: PointName;
  /** Built with `makeContext`; updated in place. */
  context: Context;
  env: EnvReader;
  /** The configured event log, or undefined for none. */
  log?: { path: string; enabled: boolean };
  warn: (message: string) => void;
}

/** What one run did. */
export interface RunOneResult {
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  /** The `hooks.ran` record. */
  ran: EventRecord;
  /** Every record the call left (hooks.failed, hooks.decided, … and hooks.ran). */
  events: EventRecord[];
}

/** Loads, runs and closes the hook. Throws when it cannot be loaded or is not called at `point`. */
export async function runOne(opts: RunOneOptions): Promise<RunOneResult> {
  const { entry, point } = opts;
  const one: Declaration = { ...opts.decl, entries: [entry] };
  let runner: Runner | undefined;
  try {
    const loaded = await loadExecutors(one, { env: opts.env, strict: true });
    if (loaded.problems.length > 0) {
      throw new ProblemsError(
        loaded.problems,
        problemsSummary(loaded.problems, `hook "${entry.name}" could not be loaded`),
      );
    }
    const memory = new MemorySink({ source: "cli" });
    const log = opts.log
      ? new EventLog({ path: opts.log.path, source: "cli", enabled: opts.log.enabled })
      : undefined;
    const sink: EventSink = {
      emit(event, fields, o) {
        memory.emit(event, fields, o);
        log?.emit(event, fields, o);
      },
    };
    runner = new Runner({
      entries: loaded.entries,
      sink,
      warn: opts.warn,
      secrets: secretsOf(one, opts.env),
    });
    const exec = loaded.executors[0];
    if (!exec.handles(point)) {
      const handled = POINT_NAMES.filter((p) => exec.handles(p));
      throw new Error(
        `hook "${entry.name}" is not called at ${point}: it handles ${
          handled.length ? handled.join(", ") : "no point"
        }${entry.on ? " (its on: list)" : ""}${
          misspeltHintFor(exec, point)
        }; test it at one of those`,
      );
    }
    const before = { ...decisionsOf(point, opts.context as never) } as Record<string, unknown>;
    await runner.run(point, opts.context as never);
    const after = { ...decisionsOf(point, opts.context as never) } as Record<string, unknown>;
    const ran = memory.ofType("hooks.ran")[0];
    if (!ran) throw new Error(`hook "${entry.name}" was not called at ${point}`);
    return { before, after, ran, events: memory.records };
  } finally {
    await runner?.close();
    await stopBundler();
  }
}
