/**
 * The process runner: every prompt is one headless harness run (`claude -p … --output-format json`, `codex exec --json …`: the adapter's) in
 * the session's directory, continuing the conversation with `--resume <id>`; its output goes to
 * `<logDir>/<slug>.log`. Nothing runs between prompts, so a delivery always finds the harness
 * (it is the run); closing a session ends any run still going. The harness gets only the environment `harness_env.ts` builds
 * (`clearEnv`): none of the daemon's secrets; and, for every run (spawn and delivery alike), the
 * session's own variables (`HostedSession.env`) over it.
 *
 * Each run is given the caller's caps (`RunOptions.limits`, which the adapter turns into flags:
 * `claude --max-turns N --max-budget-usd X`), and when it has exited — succeeded or failed, as
 * long as its output holds a result the adapter can read (`usageFromOutput`) — what it reports it
 * used goes to `RunOptions.onUsage`, exactly once per run.
 *
 * @module
 */
import { join } from "node:path";
import type {
  HarnessAdapter,
  HarnessName,
  HarnessRunner,
  HarnessSettings,
  HostedSession,
  RunOptions,
  SpawnResult,
} from "../seams.ts";
import { loggedRun } from "./_logged_run.ts";
import { runnerEnvironment, type RunnerEnvOptions } from "./harness_env.ts";

/**
 * Options of {@linkcode ProcessRunner}; the harness's environment is built from the
 * {@linkcode RunnerEnvOptions} (see `harness_env.ts`).
 */
export interface ProcessRunnerOptions extends RunnerEnvOptions {
  adapter: (h: HarnessName) => HarnessAdapter;
  /** `routing.harnessArgs.<harness>`. */
  extraArgs: (h: HarnessName) => string[];
  /** The config's settings of a harness (approval, model, trust); none: no flags of its own. */
  settings?: (h: HarnessName) => HarnessSettings;
  /** Where `<slug>.log` files go (made when missing). */
  logDir: string;
  /** How long one run may take (`routing.dispatchTimeoutSeconds`). */
  timeoutMs: number;
  /** How long a run gets after SIGTERM (timeout, abort, close) before SIGKILL; default 5 s. */
  killGraceMs?: number;
  /** Where a failing `onUsage` is reported; default: `console.error`. */
  warn?: (message: string) => void;
}

/** Runs each prompt as a headless harness subprocess. */
export class ProcessRunner implements HarnessRunner {
  readonly kind = "process" as const;
  readonly #o: ProcessRunnerOptions;
  readonly #running = new Map<string, Set<() => Promise<void>>>();
  /** The harness's whole environment (nothing else of the daemon's reaches it). */
  readonly #env: Record<string, string>;

  constructor(opts: ProcessRunnerOptions) {
    this.#o = opts;
    this.#env = runnerEnvironment(opts);
  }

  /** The log file of a session. */
  logPath(slug: string): string {
    return join(this.#o.logDir, `${slug}.log`);
  }

  /**
   * Runs the first prompt: a new conversation (its id read from the output), or with `resume`
   * the recorded one continued.
   */
  async spawn(
    s: HostedSession,
    prompt: string,
    opts: RunOptions & { resume: boolean },
  ): Promise<SpawnResult> {
    const adapter = this.#o.adapter(s.harness);
    if (opts.resume && s.harnessSessionId) {
      const out = await this.#run(s, adapter, prompt, s.harnessSessionId, opts);
      return {
        harnessSessionId: adapter.sessionIdFromOutput(out) ?? s.harnessSessionId,
        tmuxTarget: "",
      };
    }
    const out = await this.#run(s, adapter, prompt, undefined, opts);
    const id = adapter.sessionIdFromOutput(out);
    if (!id) {
      throw new Error(
        `${adapter.program} for ${s.ref} printed no session id in its JSON output, so its ` +
          `conversation cannot be continued; see ${this.logPath(s.slug)}`,
      );
    }
    return { harnessSessionId: id, tmuxTarget: "" };
  }

  /**
   * Runs one more prompt in the recorded conversation (`--resume <id>`); `true` once it ran
   * (nothing runs between prompts, so there is no harness to find gone).
   */
  async deliver(
    s: HostedSession,
    prompt: string,
    opts: RunOptions,
  ): Promise<boolean> {
    const adapter = this.#o.adapter(s.harness);
    if (!s.harnessSessionId) {
      throw new Error(
        `${s.ref} has no ${adapter.program} conversation id to resume: spawn it again`,
      );
    }
    await this.#run(s, adapter, prompt, s.harnessSessionId, opts);
    return true;
  }

  /** Ends the session's runs still going (SIGTERM, then SIGKILL after the grace). */
  async close(s: HostedSession): Promise<void> {
    await Promise.all([...(this.#running.get(s.slug) ?? [])].map((stop) => stop()));
  }

  async #run(
    s: HostedSession,
    adapter: HarnessAdapter,
    prompt: string,
    sessionId: string | undefined,
    opts: RunOptions,
  ): Promise<string> {
    const { signal, limits, onUsage } = opts;
    signal?.throwIfAborted();
    const extraArgs = this.#o.extraArgs(s.harness);
    const settings = this.#o.settings?.(s.harness);
    const mask = `<prompt-${crypto.randomUUID()}>`;
    const shown = prompt.startsWith("-") ? `-${mask}` : mask;
    const args = adapter.headless({ sessionId, prompt, extraArgs, settings, limits });
    // the log shows the argv with the prompt masked (an adapter may glue it to its flag)
    const shownArgs = adapter.headless({ sessionId, prompt: shown, extraArgs, settings, limits })
      .map((a) => a.includes(shown) ? a.replace(shown, `<prompt: ${prompt.length} chars>`) : a);
    await Deno.mkdir(this.#o.logDir, { recursive: true });
    return await loggedRun({
      program: adapter.program,
      args,
      shownArgs,
      cwd: s.cwd,
      env: { ...this.#env, ...s.env },
      logFile: this.logPath(s.slug),
      timeoutMs: this.#o.timeoutMs,
      graceMs: this.#o.killGraceMs ?? 5000,
      signal,
      label: `${adapter.program} for ${s.ref}`,
      ended: (stdout) => this.#report(s, adapter, stdout, onUsage),
      track: (stop) => {
        const set = this.#running.get(s.slug) ?? new Set();
        this.#running.set(s.slug, set.add(stop));
        return () => {
          set.delete(stop);
          if (!set.size) this.#running.delete(s.slug);
        };
      },
    });
  }

  /**
   * Hands what the run reported it used to `onUsage` (nothing when its output reports nothing).
   * A failing `onUsage` is warned about, never the run's failure: the harness did its work.
   */
  #report(
    s: HostedSession,
    adapter: HarnessAdapter,
    stdout: string,
    onUsage: RunOptions["onUsage"],
  ): void {
    if (!onUsage) return;
    try {
      const usage = adapter.usageFromOutput(stdout);
      if (usage) onUsage(usage);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      (this.#o.warn ?? ((m: string) => console.error(`warning: ${m}`)))(
        `${adapter.program} for ${s.ref}: recording what the run used failed: ${why}`,
      );
    }
  }
}
