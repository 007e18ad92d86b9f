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
} from "../../executor.ts";
import { ANSWER_MAX_BYTES } from "../../sdk/contract.ts";
import type { PointName } from "../../sdk/points.ts";
import { hookEnv, workItemRefOf } from "./_env.ts";
import { DEFAULT_PATH, resolveProgram } from "./_resolve.ts";
import { runGroup } from "./_run.ts";
import { interpret, type Telemetry, telemetryOf } from "./interpret.ts";

export type { Telemetry } from "./interpret.ts";

/** A command hook failed; `telemetry` holds its exit code and capped output for `hooks.failed`. */
export class CommandHookFailure extends HookFailure {
  override name = "HookFailure";
  readonly telemetry: Telemetry;
  constructor(message: string, telemetry: Telemetry) {
    super(message);
    this.telemetry = telemetry;
  }
}

/** A command hook ran out of time and its process group was killed; carries what it printed. */
export class CommandHookTimeout extends HookTimeout {
  override name = "HookTimeout";
  readonly telemetry: Telemetry;
  constructor(message: string, telemetry: Telemetry) {
    super(message);
    this.telemetry = telemetry;
  }
}

/** Options for {@linkcode createCommandExecutor}. */
export interface CommandExecutorOptions {
  /** The declaration's `name`. */
  name: string;
  /** The program and its arguments, passed as they are (no shell). */
  argv: string[];
  /** The config file's directory: relative programs resolve against it; the hook runs in it. */
  cwd: string;
  /** Names of environment variables passed through (values read at call time). */
  env?: string[];
  /** Cap on each of stdout and stderr; default 65536. */
  maxOutputBytes?: number;
  /** The points the hook wants; default all. */
  on?: PointName[];
  /** Reads an environment variable; default `Deno.env.get`. */
  getEnv?: (name: string) => string | undefined;
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
  if (opts.argv.length === 0 || opts.argv[0] === "") {
    throw new HookFailure(`hook ${opts.name}: command is empty; give the program to run`);
  }
  const getEnv = opts.getEnv ?? ((n: string) => Deno.env.get(n));
  const refOf = opts.workItemRef ?? workItemRefOf;
  const max = opts.maxOutputBytes ?? 65536;
  const running = new Set<() => Promise<void>>();
  const sweeps = new Set<Promise<void>>();
  let closed = false;
  const program = () =>
    resolveProgram(opts.argv[0], {
      hook: opts.name,
      cwd: opts.cwd,
      path: getEnv("PATH") ?? DEFAULT_PATH,
    });

  return {
    name: opts.name,
    kind: "command",
    handles: (point) => opts.on === undefined || opts.on.includes(point),

    check() {
      return Promise.resolve().then(() => ({ program: program() }));
    },

    async call(
      point: PointName,
      params: Record<string, unknown>,
      call: CallOptions,
    ): Promise<CallResult> {
      if (closed) throw new HookFailure(`hook ${opts.name}: the hook was closed`);
      const path = program();
      const env = hookEnv({
        point,
        hook: opts.name,
        workItem: refOf(params),
        pass: opts.env ?? [],
        getEnv,
      });
      const input = new TextEncoder().encode(JSON.stringify({ point, context: params }));
      const run = await runGroup({
        program: path,
        args: opts.argv.slice(1),
        cwd: opts.cwd,
        env,
        input,
        maxOutputBytes: max,
        maxStdoutBytes: ANSWER_MAX_BYTES,
        timeoutMs: call.timeoutMs,
        track(kill) {
          running.add(kill);
          return () => running.delete(kill);
        },
        background(sweep) {
          sweeps.add(sweep);
          sweep.finally(() => sweeps.delete(sweep));
        },
      });
      const where = `hook ${opts.name} (${opts.argv[0]})`;
      if (run.kind === "spawn_failed") {
        throw new CommandHookFailure(`${where}: could not start ${path}: ${run.message}`, {});
      }
      if (run.kind === "timeout") {
        const tel = telemetryOf(run.stdout, run.stderr, run.leader?.code);
        const held = run.leader
          ? ` It exited (code ${run.leader.code}) but a background process kept its stdout or ` +
            `stderr open; redirect background output (e.g. \`cmd >/dev/null 2>&1 &\`).`
          : "";
        throw new CommandHookTimeout(
          `${where}: no result within ${call.timeoutMs} ms; its process group was killed.${held}`,
          tel,
        );
      }
      const out = interpret(run, { hook: opts.name, max, answerMax: ANSWER_MAX_BYTES });
      if (!out.ok) throw new CommandHookFailure(`${where}: ${out.message}`, out.telemetry);
      return out.result;
    },

    async close() {
      closed = true;
      const kills = [...running].map((kill) => kill());
      running.clear();
      await Promise.all([...kills, ...sweeps]);
    },
  };
}
