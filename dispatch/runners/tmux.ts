/**
 * The tmux runner: each session's harness runs interactively in tmux session `loop-<slug>`, where
 * a human can attach and watch (or take over). A prompt is delivered by pasting it into the pane
 * through a buffer named for that session and that delivery alone (`loop-<slug>-<uuid>`, loaded
 * from stdin and deleted by the paste), so concurrent deliveries to different sessions can never
 * swap texts. A delivery never launches anything: into a dead pane or a missing session it pastes
 * nothing and answers `false`, and the dispatcher relaunches the harness (after `session_spawn`)
 * through {@linkcode TmuxRunner.spawn} — resuming the same conversation when asked and the
 * recorded id can be resumed, else (or when the resumed harness dies within
 * `resumeProbeSeconds`) booting a fresh one and saying so through `onResumeFailed`.
 *
 * The harness gets the environment `harness_env.ts` builds, and nothing else of the daemon's: every
 * tmux client runs with that environment alone (so a server this runner starts holds it as its
 * global environment, none of the daemon's secrets), and `new-session`/`respawn-pane` set it with
 * `-e NAME=value` over the global environment of a server someone else started, whose other
 * variables (a shell's, its secrets among them) are removed by starting the harness through
 * `env -u NAME… --` (names only, never a value, in the argv). The agent's
 * token (`agentTokenEnv`) is left out of `-e`, so it never lands in a tmux argv: the harness gets
 * it from the global environment of a server the-loop started. A session's own variables
 * (`HostedSession.env`: its capability, its work item, the control socket, `PATH` with the-loop's
 * launcher first) are set with `-e` too, over the pane's (its `PATH` wins), at every boot and
 * respawn.
 *
 * An interactive harness is not measured and not capped: this runner never calls
 * `RunOptions.onUsage` (a TUI prints no result to read), and ignores `RunOptions.limits` (the
 * caps are headless flags; the budgets themselves still count deliveries, spawns and wall time).
 *
 * @module
 */
import { delay } from "../../async/mod.ts";
import type { RoutingConfig } from "../../config/types.ts";
import type {
  HarnessAdapter,
  HarnessCall,
  HarnessName,
  HarnessRunner,
  HarnessSettings,
  HostedSession,
  RunOptions,
  SpawnResult,
} from "../seams.ts";
import { terminateTree } from "./_kill_tree.ts";
import { allowlisted, runnerEnvironment, type RunnerEnvOptions } from "./harness_env.ts";
import { clientEnv, tmux, tmuxArgv, type TmuxCli } from "./_tmux_cli.ts";
import { TmuxControl } from "./_tmux_control.ts";
import { paneOf } from "./tmux_words.ts";
import {
  envWords,
  panePid,
  type PaneState,
  paneState,
  pasteIfAlive,
  pasteInto,
  startIn,
} from "./_tmux_pane.ts";
import { messageOf } from "../../errors.ts";

/** A spawn that could not resume its conversation and booted a fresh one instead. */
export interface ResumeFailure {
  /** Why: no resumable id, the resumed harness exited at once, or tmux failed. */
  reason: string;
  /** The fresh conversation's id. */
  harnessSessionId: string;
}

/**
 * Options of {@linkcode TmuxRunner}; the harness's environment is built from the
 * {@linkcode RunnerEnvOptions} (see `harness_env.ts`).
 */
export interface TmuxRunnerOptions extends RunnerEnvOptions {
  adapter: (h: HarnessName) => HarnessAdapter;
  /** `routing.harnessArgs.<harness>`. */
  extraArgs: (h: HarnessName) => string[];
  /** The config's settings of a harness (approval, model, trust); none: no flags of its own. */
  settings?: (h: HarnessName) => HarnessSettings;
  /**
   * How long a harness that names its conversation only on disk (codex) has to do so after its
   * boot, and how long a command that issues an id (`cursor-agent create-chat`) may take;
   * default 20 s. Past it the spawn fails, saying so.
   */
  idTimeoutMs?: number;
  /** `tmux -L <socket>`: a private server (tests); the user's default server when absent. */
  socket?: string;
  tmux: RoutingConfig["tmux"];
  /** A resume fell back to a fresh conversation (the caller emits `session.resume_failed`). */
  onResumeFailed?: (s: HostedSession, failure: ResumeFailure) => void;
  /** Best-effort problems (an old tmux rejecting `remain-on-exit`); default: stderr. */
  warn?: (message: string) => void;
  /**
   * Keep one tmux client in control mode for the runner's commands (a daemon: a delivery then
   * costs a line on a pipe, not a `tmux` process); {@linkcode TmuxRunner.dispose} ends it.
   * Default false: every command is a `tmux` process of its own.
   */
  control?: boolean;
}

/**
 * tmux's own limit on one command (its client→server message is 16 KiB): a boot argv longer
 * than this boots without the prompt, which is then pasted like any delivery.
 */
const MAX_BOOT_BYTES = 12 * 1024;
const POLL_MS = 100;
const ENC = new TextEncoder();

/** The tmux session of a slug: `loop-<slug>`, with `.` and `:` as `_` (what tmux makes of them). */
export function tmuxSessionName(slug: string): string {
  return `loop-${slug}`.replace(/[.:]/g, "_");
}

/** Hosts each session's harness in tmux session `loop-<slug>`. */
export class TmuxRunner implements HarnessRunner {
  readonly kind = "tmux" as const;
  readonly #o: TmuxRunnerOptions;
  readonly #cli: TmuxCli;
  readonly #control?: TmuxControl;
  /** What `-e` sets in a pane: the harness's environment but the agent's token. */
  readonly #paneEnv: Record<string, string>;

  constructor(opts: TmuxRunnerOptions) {
    this.#o = opts;
    const base = opts.baseEnv ?? Deno.env.toObject();
    const env = runnerEnvironment({ ...opts, baseEnv: base });
    this.#paneEnv = { ...env };
    if (opts.agentTokenEnv && opts.env?.GH_TOKEN === undefined) delete this.#paneEnv.GH_TOKEN;
    // where the daemon's tmux looks for its server's socket
    const socketDir: Record<string, string> = base.TMUX_TMPDIR === undefined
      ? {}
      : { TMUX_TMPDIR: base.TMUX_TMPDIR };
    this.#cli = { socket: opts.socket, env: { ...socketDir, ...env } };
    if (opts.control) {
      const cli = { ...this.#cli };
      this.#control = new TmuxControl(cli, () => clientEnv(cli));
      this.#cli.control = this.#control;
    }
  }

  /** Ends the control client (when there is one) and its session. */
  async dispose(): Promise<void> {
    await this.#control?.close();
  }

  /** `tmux [-L sock] attach -t loop-<slug>`: the line announcements and `sessions attach` show. */
  attachCommand(slug: string): string {
    const sock = this.#o.socket ? `-L ${this.#o.socket} ` : "";
    return `tmux ${sock}attach -t ${tmuxSessionName(slug)}`;
  }

  /** Boots the harness in a new `loop-<slug>` (reclaiming a retained one of that name). */
  async spawn(
    s: HostedSession,
    prompt: string,
    opts: RunOptions & { resume: boolean },
  ): Promise<SpawnResult> {
    const name = tmuxSessionName(s.slug);
    if ((await this.#state(name, opts.signal)) !== "missing") {
      await tmux(this.#cli, [["kill-session", "-t", `=${name}`]], { signal: opts.signal });
    }
    const harnessSessionId = await this.#boot(s, prompt, opts);
    return { harnessSessionId, tmuxTarget: name };
  }

  /**
   * Pastes the prompt and presses Enter when the harness runs; `false` when its pane is dead or
   * its session gone (nothing pasted, nothing started: the dispatcher relaunches it, asking the
   * `session_spawn` hooks first).
   */
  async deliver(
    s: HostedSession,
    prompt: string,
    opts: RunOptions,
  ): Promise<boolean> {
    return await pasteIfAlive(this.#cli, tmuxSessionName(s.slug), prompt, opts.signal);
  }

  /** Ends the harness (per `killHarnessOnClose`), then kills the session unless it is kept. */
  async close(s: HostedSession): Promise<void> {
    const name = tmuxSessionName(s.slug);
    if ((await this.#state(name)) === "missing") return;
    if (this.#o.tmux.killHarnessOnClose) {
      await this.#remainOnExit(name);
      const pid = await panePid(this.#cli, name);
      if (pid !== undefined) {
        await terminateTree(pid, {
          graceMs: this.#o.tmux.harnessKillGraceSeconds * 1000,
          gone: async () => (await this.#state(name)) !== "alive",
          group: true,
        });
      }
    }
    if (!this.#o.tmux.keepSessionOnClose) {
      const out = await tmux(this.#cli, [["kill-session", "-t", `=${name}`]]);
      if (out.code !== 0 && (await this.#state(name)) !== "missing") {
        throw new Error(`could not kill tmux session ${name}: ${out.stderr}`);
      }
    }
  }

  async #remainOnExit(name: string, signal?: AbortSignal): Promise<void> {
    const option = ["set-option", "-t", paneOf(name), "remain-on-exit", "on"];
    const out = await tmux(this.#cli, [option], { signal });
    if (out.code !== 0) this.#warn(`tmux rejected remain-on-exit for ${name}: ${out.stderr}`);
  }

  #warn(message: string): void {
    (this.#o.warn ?? ((m: string) => console.error(`warning: ${m}`)))(message);
  }

  /**
   * Starts the harness in the session (respawning its pane when the session is there, else a new
   * session), resuming when asked and possible, else — or when that fails — a fresh conversation:
   * the id of the conversation it runs.
   */
  async #boot(
    s: HostedSession,
    prompt: string,
    opts: { resume: boolean; signal?: AbortSignal },
  ): Promise<string> {
    const adapter = this.#o.adapter(s.harness);
    const call: HarnessCall = {
      extraArgs: this.#o.extraArgs(s.harness),
      settings: this.#o.settings?.(s.harness),
    };
    let failure: string | undefined;
    if (opts.resume) {
      failure = await this.#tryResume(s, adapter, call, prompt, opts.signal);
      if (failure === undefined) return s.harnessSessionId;
    }
    // a new conversation's id, as the harness takes one: pre-assigned (the recorded one, or after
    // a failed resume a new one: claude refuses `--session-id` of a conversation that exists),
    // issued by the harness's own command, or named by the harness once it runs
    const reuse = !failure && adapter.isResumableId(s.harnessSessionId);
    let fresh = reuse ? s.harnessSessionId : "";
    if (!reuse && adapter.ids.kind === "preassign") fresh = crypto.randomUUID();
    if (!reuse && adapter.ids.kind === "issue") {
      fresh = await this.#issueId(s, adapter, call, opts.signal);
    }
    const since = Date.now();
    await this.#start(
      s,
      adapter,
      (p) => adapter.interactive({ ...call, sessionId: fresh, prompt: p }),
      prompt,
      opts.signal,
    );
    if (!fresh) fresh = await this.#discoverId(s, adapter, since, opts.signal);
    if (failure) this.#o.onResumeFailed?.(s, { reason: failure, harnessSessionId: fresh });
    return fresh;
  }

  /** A new conversation's id from the harness's own command (`cursor-agent create-chat`). */
  async #issueId(
    s: HostedSession,
    adapter: HarnessAdapter,
    call: HarnessCall,
    signal?: AbortSignal,
  ): Promise<string> {
    if (adapter.ids.kind !== "issue") return "";
    const args = adapter.ids.args(call);
    const shown = `${adapter.program} ${args.join(" ")}`;
    const timeout = AbortSignal.timeout(this.#o.idTimeoutMs ?? 20_000);
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(adapter.program, {
        args,
        cwd: s.cwd,
        env: { ...this.#cli.env, ...s.env },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      }).output();
    } catch (err) {
      signal?.throwIfAborted();
      throw new Error(`${shown} for ${s.ref} could not run: ${messageOf(err)}`);
    }
    const id = adapter.ids.parse(new TextDecoder().decode(out.stdout));
    if (!id) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
      throw new Error(
        `${shown} for ${s.ref} printed no conversation id (exit ${out.code}${
          why ? `: ${why}` : ""
        }), so no session can be started that the-loop could continue`,
      );
    }
    return id;
  }

  /**
   * The id of the conversation a harness that names it only on disk started (codex), waited for
   * up to `idTimeoutMs`; past it the session is killed and the spawn fails.
   */
  async #discoverId(
    s: HostedSession,
    adapter: HarnessAdapter,
    since: number,
    signal?: AbortSignal,
  ): Promise<string> {
    const name = tmuxSessionName(s.slug);
    const env = { ...this.#paneEnv, ...s.env };
    const until = Date.now() + (this.#o.idTimeoutMs ?? 20_000);
    for (;;) {
      const id = await adapter.discoverId?.({ cwd: s.cwd, since, env });
      if (id) return id;
      if (!adapter.discoverId || Date.now() >= until) break;
      await delay(Math.min(POLL_MS, until - Date.now()), { signal });
    }
    await tmux(this.#cli, [["kill-session", "-t", `=${name}`]]).catch(() => undefined);
    throw new Error(
      `${adapter.program} for ${s.ref} named no conversation within ${
        (this.#o.idTimeoutMs ?? 20_000) / 1000
      } s (nothing in its sessions folder for ${s.cwd}), so it could not be continued: ` +
        `the session was ended; see docs/harnesses.md`,
    );
  }

  /** Resumes the recorded conversation; the reason it could not, or `undefined` when it runs. */
  async #tryResume(
    s: HostedSession,
    adapter: HarnessAdapter,
    call: HarnessCall,
    prompt: string,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const id = s.harnessSessionId;
    if (!id) return `no ${adapter.program} conversation id was recorded to resume`;
    if (!adapter.isResumableId(id)) return `the recorded id "${id}" cannot be resumed`;
    try {
      await this.#start(
        s,
        adapter,
        (p) => adapter.resume({ ...call, sessionId: id, prompt: p || undefined }),
        prompt,
        signal,
      );
    } catch (err) {
      signal?.throwIfAborted();
      return `tmux failed to resume: ${messageOf(err)}`;
    }
    // tmux starts the pane at once; a harness that cannot resume exits a moment later
    const name = tmuxSessionName(s.slug);
    const until = Date.now() + this.#o.tmux.resumeProbeSeconds * 1000;
    for (;;) {
      if ((await this.#state(name, signal)) !== "alive") {
        return `${adapter.program} --resume ${id} exited at once (the conversation cannot be resumed)`;
      }
      if (Date.now() >= until) return undefined;
      await delay(Math.min(POLL_MS, until - Date.now()));
    }
  }

  /**
   * Runs `program <args(prompt)>` in the session's pane. A boot command too long for tmux boots
   * without the prompt and pastes it instead.
   */
  async #start(
    s: HostedSession,
    adapter: HarnessAdapter,
    args: (prompt: string) => string[],
    prompt: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const name = tmuxSessionName(s.slug);
    // the session's own variables (its capability, `PATH` with the-loop first) over the pane's
    const paneEnv = { ...this.#paneEnv, ...s.env };
    const unset = (await this.#foreignEnv(signal)).filter((n) => !(n in paneEnv));
    // what a server someone else started holds in its global environment (a shell's secrets)
    // is removed by `env -u NAME` before the harness starts: names only, never a value
    const wrap = (argv: string[]) =>
      unset.length === 0 ? argv : ["env", ...unset.flatMap((n) => ["-u", n]), "--", ...argv];
    const full = wrap([adapter.program, ...args(prompt)]);
    // the pane's `-e NAME=value` words go in the same command
    const size = tmuxArgv(this.#cli, [[...envWords(paneEnv), ...full]])
      .reduce((n, a) => n + ENC.encode(a).length + 1, 0);
    const pasteAfter = size > MAX_BOOT_BYTES && prompt !== "";
    // tmux gives a new pane the PATH of the command-line client that asked for it, over `-e`
    // (not a control client's): the session's PATH goes in that client's environment too
    const cli = s.env?.PATH === undefined
      ? this.#cli
      : { ...this.#cli, env: { ...this.#cli.env, PATH: s.env.PATH } };
    await startIn(cli, {
      name,
      cwd: s.cwd,
      argv: pasteAfter ? wrap([adapter.program, ...args("")]) : full,
      env: paneEnv,
      remainOnExit: this.#o.tmux.remainOnExit,
      warn: (m) => this.#warn(m),
      signal,
    });
    if (pasteAfter && !(await pasteInto(this.#cli, name, prompt, signal))) {
      throw new Error(`the harness in tmux session ${name} exited before its prompt was pasted`);
    }
  }

  /**
   * The names in the server's global environment that the harness's is not built with: none
   * when the-loop's own client started the server (its global environment is the harness's), or
   * when no server runs yet (the next command starts one); a server someone else started holds
   * their shell's environment.
   */
  async #foreignEnv(signal?: AbortSignal): Promise<string[]> {
    const out = await tmux(this.#cli, [["show-environment", "-g"]], { signal });
    if (out.code !== 0) return [];
    const ours = new Set(Object.keys(this.#cli.env));
    const names = out.stdout.split("\n").map((l) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(l)?.[1]);
    // the allowlist's names are no secret, and tmux sets TERM, TERM_PROGRAM… and TMUX… itself
    const keep = (n: string) => ours.has(n) || allowlisted(n) || /^(TMUX|TERM_PROGRAM)/.test(n);
    return [...new Set(names)].filter((n): n is string => n !== undefined && !keep(n));
  }

  #state(name: string, signal?: AbortSignal): Promise<PaneState> {
    return paneState(this.#cli, name, signal);
  }
}
