/**
 * The command executor: a hook that is an external program. It is run without a shell, in its
 * own process group, with a minimal environment; it reads `{"point", "context"}` as JSON on
 * stdin and answers on stdout (nothing = pass, or a JSON object of decisions). Exit 0 is an
 * answer, exit 2 refuses the operation with stderr as the reason, anything else fails. Stdout is
 * read up to `maxOutputBytes` and never past 1 MiB (`ANSWER_MAX_BYTES`); each decision is then
 * held to its own cap when the answer is applied.
 *
 * @module
 */
import {
  type CallOptions,
  type CallResult,
  type Executor,
  HookFailure,
  HookTimeout,
  type Telemetry,
} from "../../executor.ts";
import {
  commandClosed,
  commandFailed,
  commandTimedOut,
  emptyCommand,
  type HookAt,
  spawnFailed,
} from "../../_messages.ts";
import { ANSWER_MAX_BYTES } from "../../sdk/contract.ts";
import type { PointName } from "../../sdk/points.ts";
import { DeclaredHook, type HookOptions } from "../_declared.ts";
import { hookEnv, workItemRefOf } from "./_env.ts";
import { DEFAULT_PATH, resolveProgram } from "./_resolve.ts";
import { runGroup, type RunOutcome } from "./_run.ts";
import { interpret, telemetryOf } from "./interpret.ts";

export type { Telemetry } from "./interpret.ts";

/** A command hook failed; `telemetry` holds its exit code and capped output for `hooks.failed`. */
export class CommandHookFailure extends HookFailure {
  declare readonly telemetry: Telemetry;
}

/** A command hook ran out of time and its process group was killed; carries what it printed. */
export class CommandHookTimeout extends HookTimeout {
  declare readonly telemetry: Telemetry;
}

/**
 * Options for {@linkcode createCommandExecutor}: `env` reads PATH, HOME and the passed-through
 * variables at call time.
 */
export interface CommandExecutorOptions extends HookOptions {
  /** The program and its arguments, passed as they are (no shell). */
  argv: string[];
  /** The config file's directory: relative programs resolve against it; the hook runs in it. */
  cwd: string;
  /** The declaration's `env`: names of environment variables passed through (read at call time). */
  passEnv?: string[];
  /** Cap on each of stdout and stderr; default 65536. */
  maxOutputBytes?: number;
  /** The work item ref for THE_LOOP_WORK_ITEM; default `params.work_item`'s ref. */
  workItemRef?: (params: Record<string, unknown>) => string;
}

/** A command hook; `check` backs `hooks validate`. */
export interface CommandExecutor extends Executor {
  readonly kind: "command";
  /** Resolves the program; throws {@linkcode HookFailure} when it is missing or not executable. */
  check(): Promise<{ program: string }>;
}

/** Builds the command executor for one `command:` declaration. */
export function createCommandExecutor(opts: CommandExecutorOptions): CommandExecutor {
  return new CommandHook(opts);
}

/** One command hook: its runs in flight (killed by `close`) and their background sweeps. */
class CommandHook extends DeclaredHook implements CommandExecutor {
  readonly kind = "command" as const;
  readonly #opts: CommandExecutorOptions;
  readonly #max: number;
  /** Whom its messages are about: the program as declared. */
  readonly #at: HookAt;
  readonly #running = new Set<() => Promise<void>>();
  readonly #sweeps = new Set<Promise<void>>();
  #closed = false;

  constructor(opts: CommandExecutorOptions) {
    super(opts);
    const at: HookAt = { hook: opts.name, kind: "command" };
    if (opts.argv.length === 0 || opts.argv[0] === "") throw new HookFailure(emptyCommand(at));
    this.#opts = opts;
    this.#max = opts.maxOutputBytes ?? 65536;
    this.#at = { ...at, target: opts.argv[0] };
  }

  check(): Promise<{ program: string }> {
    return Promise.resolve().then(() => ({ program: this.#program() }));
  }

  async call(
    point: PointName,
    params: Record<string, unknown>,
    call: CallOptions,
  ): Promise<CallResult> {
    if (this.#closed) throw new HookFailure(commandClosed(this.#at));
    const program = this.#program();
    const run = await runGroup({
      program,
      args: this.#opts.argv.slice(1),
      cwd: this.#opts.cwd,
      env: this.#environment(point, params),
      input: new TextEncoder().encode(JSON.stringify({ point, context: params })),
      maxOutputBytes: this.#max,
      maxStdoutBytes: ANSWER_MAX_BYTES,
      timeoutMs: call.timeoutMs,
      track: (kill) => {
        this.#running.add(kill);
        return () => this.#running.delete(kill);
      },
      background: (sweep) => {
        this.#sweeps.add(sweep);
        sweep.finally(() => this.#sweeps.delete(sweep));
      },
    });
    return this.#answer({ ...this.#at, point }, program, run, call.timeoutMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const kills = [...this.#running].map((kill) => kill());
    this.#running.clear();
    await Promise.all([...kills, ...this.#sweeps]);
  }

  /** The program's absolute path, looked up now (it may have been installed since). */
  #program(): string {
    return resolveProgram(this.#opts.argv[0], {
      at: this.#at,
      cwd: this.#opts.cwd,
      path: this.env("PATH") ?? DEFAULT_PATH,
    });
  }

  /** The run's whole environment, its values read now. */
  #environment(point: PointName, params: Record<string, unknown>): Record<string, string> {
    return hookEnv({
      point,
      hook: this.name,
      workItem: (this.#opts.workItemRef ?? workItemRefOf)(params),
      pass: this.#opts.passEnv ?? [],
      env: this.env,
    });
  }

  /** The answer of a finished run, or the failure it is. */
  #answer(at: HookAt, program: string, run: RunOutcome, timeoutMs: number): CallResult {
    if (run.kind === "spawn_failed") {
      throw new CommandHookFailure(spawnFailed(at, program, run.message));
    }
    if (run.kind === "timeout") {
      const telemetry = telemetryOf(run.stdout, run.stderr, run.leader?.code);
      throw new CommandHookTimeout(commandTimedOut(at, timeoutMs, run.leader?.code, telemetry));
    }
    const out = interpret(run, { hook: this.name, max: this.#max, answerMax: ANSWER_MAX_BYTES });
    if (!out.ok) throw new CommandHookFailure(commandFailed(at, out, out.telemetry));
    return out.result;
  }
}
