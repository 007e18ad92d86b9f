/**
 * A tmux runner on a private tmux server (`tmux -L the-loop-test-<uuid>`) with the fake harnesses
 * first on PATH, for the runner tests; `cleanup()` kills the server and removes the files.
 *
 * @module
 */
import { join } from "node:path";
import type { RoutingConfig } from "../../config/types.ts";
import { adapterFor } from "../harness/mod.ts";
import type { HarnessName, HostedSession } from "../seams.ts";
import { type ResumeFailure, TmuxRunner, type TmuxRunnerOptions, tmuxSessionName } from "./mod.ts";
import { tmuxOk } from "./_tmux_cli.ts";
import { paneState } from "./_tmux_pane.ts";
import { pathWithFakes } from "../../tests/fake_harness/mod.ts";

export const EXTRA: Record<HarnessName, string[]> = {
  claude: ["--model", "opus"],
  cursor: ["--force"],
  codex: [],
  gemini: [],
  opencode: [],
};

export async function tmuxSetup(
  opts: {
    env?: Record<string, string>;
    tmux?: Partial<RoutingConfig["tmux"]>;
    /** The runner keeps a control-mode client (a daemon's runner); default false. */
    control?: boolean;
    /** How long a harness has to name its conversation (`TmuxRunnerOptions.idTimeoutMs`). */
    idTimeoutMs?: number;
    /** What the harness's environment is built from (the runner's options of those names). */
    environment?: Pick<TmuxRunnerOptions, "baseEnv" | "harnessEnv" | "agentTokenEnv">;
  } = {},
) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-tmux-" }));
  const harnessLog = join(dir, "harness.jsonl");
  const socket = `the-loop-test-${crypto.randomUUID()}`;
  const resumeFailures: { slug: string; failure: ResumeFailure }[] = [];
  const warnings: string[] = [];
  const runner = new TmuxRunner({
    adapter: adapterFor,
    extraArgs: (h) => EXTRA[h],
    socket,
    tmux: {
      keepSessionOnClose: true,
      remainOnExit: true,
      resumeOnRespawn: true,
      resumeProbeSeconds: 1,
      killHarnessOnClose: true,
      harnessKillGraceSeconds: 2,
      ...opts.tmux,
    },
    // the server's socket goes under the test's directory, removed with it
    env: { PATH: pathWithFakes(), FAKE_HARNESS_LOG: harnessLog, TMUX_TMPDIR: dir, ...opts.env },
    onResumeFailed: (s, failure) => resumeFailures.push({ slug: s.slug, failure }),
    warn: (m) => warnings.push(m),
    control: opts.control,
    ...(opts.idTimeoutMs ? { idTimeoutMs: opts.idTimeoutMs } : {}),
    ...opts.environment,
  });
  const session = (
    n: number,
    harness: HarnessName = "claude",
    harnessSessionId: string = crypto.randomUUID(),
  ): HostedSession => ({
    ref: `github:octo/repo#${n}`,
    slug: `github-octo-repo-${n}`,
    harness,
    harnessSessionId,
    cwd: dir,
    tmuxTarget: `loop-github-octo-repo-${n}`,
  });
  /** Runs `tmux -L <socket> <args>` on the test's server; returns stdout, throws on failure. */
  // the runner's own way to tmux (its socket, its environment scrubbed of TMUX/TMUX_PANE)
  const tmux = (...args: string[]): Promise<string> =>
    tmuxOk({ socket, env: { TMUX_TMPDIR: dir } }, [args]);
  /** Whether the harness in `s`'s pane is running (the pane's process, as tmux sees it). */
  const alive = async (s: HostedSession): Promise<boolean> =>
    (await paneState({ socket, env: { TMUX_TMPDIR: dir } }, tmuxSessionName(s.slug))) === "alive";
  /** The session names on the test's server (none when it is not running), but the control one. */
  const sessions = async (): Promise<string[]> => {
    try {
      return (await tmux("list-sessions", "-F", "#{session_name}")).split("\n")
        .filter((l) => l && !l.startsWith("the-loop-ctl-"));
    } catch {
      return [];
    }
  };
  const cleanup = async () => {
    await runner.dispose();
    await tmux("kill-server").catch(() => {});
    await Deno.remove(dir, { recursive: true });
  };
  return {
    dir,
    harnessLog,
    socket,
    runner,
    session,
    resumeFailures,
    warnings,
    alive,
    tmux,
    sessions,
    cleanup,
  };
}

/** Waits until `check()` (the rig's `alive(s)`) says `want`; throws after `timeoutMs` (a bound). */
export async function waitAlive(
  check: () => Promise<boolean>,
  want: boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await check()) !== want) {
    if (Date.now() > until) throw new Error(`the pane did not become ${want ? "alive" : "dead"}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
