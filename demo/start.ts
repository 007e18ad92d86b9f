/**
 * `the-loop demo`'s whole loop, offline, in one process tree: {@linkcode startDemo} makes a
 * throwaway folder, starts the fake GitHub (the demo world and a real git repository served over
 * smart HTTP), writes the demo agent's `claude` shim and a config routed at the fake, starts the
 * daemon as a child — `poll start`, or `gh-webhook start` with the fake delivering each change as
 * a signed webhook — on a private tmux server when tmux is installed (the process runner
 * otherwise), and records itself in the run file (`run_file.ts`). `stop()` ends it all: the
 * daemon (SIGTERM, then SIGKILL), the tmux server (and with it the agent), the fake GitHub, the
 * run file and the folder.
 *
 * | in the folder              | what                                                         |
 * | -------------------------- | ------------------------------------------------------------ |
 * | `.the-loop/cli-config.yaml`| the daemon's config (`config.ts`); `.the-loop/` is its state |
 * | `git/octo/demo.git`        | the bare repository the fake GitHub serves                   |
 * | `agent-bin/`               | `claude` (the demo agent's shim) and `the-loop` (`shim.ts`)  |
 * | `daemon.log`               | the daemon's stdout and stderr                               |
 *
 * The daemon serves the status page (`ui: { port }` in the config); `pageUrl` is its URL.
 *
 * @module
 */
import { join } from "node:path";
import { settlesWithin } from "../async/mod.ts";
import type { EnvReader } from "../config/mod.ts";
import {
  DEMO_ITEM,
  DEMO_REPO,
  DEMO_USER,
  FakeGitHub,
  type Forwarding,
  makeDemoRepository,
  seedDemoWorld,
} from "./fake_github/mod.ts";
import { DEMO_TOKEN_ENV, demoConfig } from "./config.ts";
import { type DemoRun, demoRunPath, removeDemoRun, writeDemoRun } from "./run_file.ts";
import { writeAgentShim } from "./shim.ts";

/** Options of {@linkcode startDemo}. */
export interface DemoOptions {
  /** The webhook receiver instead of the poller. */
  webhook?: boolean;
  /** The status page's port (0: a free one). */
  port?: number;
  /** `tmux` or `process`; default tmux when it is installed. */
  runner?: "tmux" | "process";
  /** Keep the folder when stopping (it is removed otherwise). */
  keep?: boolean;
  env: EnvReader;
  /** The daemon's whole environment, before the demo's own variables; default this process's. */
  baseEnv?: Record<string, string>;
  /** Told each line the daemon prints (it goes to `daemon.log` too). */
  onDaemonLine?: (line: string) => void;
}

/** A running demo. */
export interface RunningDemo {
  run: DemoRun;
  /** The run file's path. */
  runFile: string;
  /** Resolves when the daemon exits by itself (its exit code), or when `stop()` ran. */
  exited: Promise<number>;
  /** Stops everything; idempotent. */
  stop(): Promise<void>;
}

/** Whether tmux runs here. */
async function hasTmux(): Promise<boolean> {
  try {
    const out = await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** A free port on 127.0.0.1 (for the status page's config). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

const random = () => crypto.randomUUID().replaceAll("-", "");

/** The daemon's environment: the base, less the variables that would send it elsewhere. */
function daemonEnv(
  base: Record<string, string>,
  own: Record<string, string>,
): Record<string, string> {
  const env = { ...base };
  for (
    const name of [
      "GITHUB_TOKEN",
      "GH_TOKEN",
      "GITHUB_API_URL",
      "THE_LOOP_CLI_CONFIG",
      "THE_LOOP_CONTROL",
      "THE_LOOP_SESSION",
      "THE_LOOP_WORK_ITEM",
      "TMUX",
      "TMUX_PANE",
    ]
  ) delete env[name];
  return { ...env, ...own };
}

/** Reads the child's output line by line into `log` and `onLine`, until it ends. */
async function pump(
  stream: ReadableStream<Uint8Array>,
  log: Deno.FsFile,
  onLine: (line: string) => void,
): Promise<void> {
  const enc = new TextEncoder();
  let rest = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    await log.write(enc.encode(text));
    rest += text;
    const lines = rest.split("\n");
    rest = lines.pop()!;
    for (const l of lines) onLine(l);
  }
  if (rest) onLine(rest);
}

/** Starts the demo (see the module doc); resolves once the daemon is ready. */
export async function startDemo(o: DemoOptions): Promise<RunningDemo> {
  const base = o.baseEnv ?? Deno.env.toObject();
  const runner = o.runner ?? (await hasTmux() ? "tmux" : "process");
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-demo-" }));
  const cleanups: (() => Promise<void>)[] = [];
  const undo = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    if (!o.keep) await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    const gitRoot = join(dir, "git");
    await makeDemoRepository(gitRoot);
    const token = `demo-daemon-${random()}`;
    const userToken = `demo-${DEMO_USER}-${random()}`;
    const gh = await FakeGitHub.start({
      token,
      users: { [userToken]: DEMO_USER },
      git: { root: gitRoot },
    });
    cleanups.push(() => gh.close());
    seedDemoWorld(gh.world);
    const bin = join(dir, "agent-bin");
    const launcher = await writeAgentShim(bin);
    const uiPort = o.port || freePort();
    const configPath = join(dir, ".the-loop", "cli-config.yaml");
    await Deno.mkdir(join(dir, ".the-loop"), { recursive: true });
    await Deno.writeTextFile(configPath, demoConfig({ apiUrl: gh.url, runner, uiPort }));
    const socket = runner === "tmux" ? `the-loop-demo-${random().slice(0, 8)}` : null;
    const secret = random();
    const env = daemonEnv(base, {
      PATH: `${bin}:${base.PATH ?? "/usr/bin:/bin"}`,
      [DEMO_TOKEN_ENV]: token,
      // who acts from the status page (a reply, a verdict): the demo's person
      THE_LOOP_ACTOR: DEMO_USER,
      THE_LOOP_GH_WEBHOOK_SECRET: secret,
      ...(socket ? { THE_LOOP_TMUX_SOCKET: socket } : {}),
    });
    if (socket) {
      cleanups.push(async () => {
        await new Deno.Command("tmux", {
          args: ["-L", socket, "kill-server"],
          env,
          clearEnv: true,
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).output().catch(() => {});
        // the socket file tmux leaves behind
        const tmp = env.TMUX_TMPDIR || "/tmp";
        await Deno.remove(join(tmp, `tmux-${Deno.uid() ?? 0}`, socket)).catch(() => {});
      });
    }
    const daemon = o.webhook ? "gh-webhook" : "poll";
    const args = ["-c", configPath, daemon, "start", ...(o.webhook ? ["--port", "0"] : [])];
    const child = new Deno.Command(launcher, {
      args,
      cwd: dir,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // its own process group: a Ctrl+C reaches the demo alone, which stops the daemon itself
      detached: true,
    }).spawn();
    const status = child.status;
    cleanups.push(async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      if (!(await settlesWithin(status, 20_000))) {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }
      await status;
    });
    const log = await Deno.open(join(dir, "daemon.log"), { append: true, create: true });
    const ready = Promise.withResolvers<string>();
    const onLine = (line: string) => {
      o.onDaemonLine?.(line);
      const m = o.webhook
        ? /^gh-webhook: listening on (http:\/\/\S+) \(pid \d+\)/.exec(line)
        : /^poll: started \(pid \d+/.exec(line);
      if (m) ready.resolve(m[1] ?? "");
    };
    const pumped = Promise.all([
      pump(child.stdout, log, onLine),
      pump(child.stderr, log, (l) => o.onDaemonLine?.(l)),
    ]).catch(() => {}).finally(() => log.close());
    cleanups.push(async () => void await settlesWithin(pumped, 2_000));
    status.then((s) =>
      ready.reject(
        new Error(`the demo's ${daemon} daemon exited ${s.code}: see ${join(dir, "daemon.log")}`),
      )
    );
    const receiver = await ready.promise;
    let forwarding: Forwarding | undefined;
    if (o.webhook) {
      forwarding = gh.forward(receiver, {
        secret,
        onError: (e) => o.onDaemonLine?.(`demo: a webhook delivery failed: ${e}`),
      });
      cleanups.push(() => forwarding!.stop());
    }
    const run: DemoRun = {
      version: 1,
      pid: Deno.pid,
      daemonPid: child.pid,
      daemon,
      dir,
      config: configPath,
      apiUrl: gh.url,
      userToken,
      user: DEMO_USER,
      repo: DEMO_REPO,
      runner,
      tmuxSocket: socket,
      pageUrl: `http://127.0.0.1:${uiPort}/`,
      startedAt: new Date().toISOString(),
    };
    const runFile = demoRunPath(o.env);
    await writeDemoRun(runFile, run);
    cleanups.push(() => removeDemoRun(runFile, Deno.pid));
    let stopping: Promise<void> | undefined;
    return {
      run,
      runFile,
      exited: status.then((s) => s.code),
      stop: () => stopping ??= undo(),
    };
  } catch (e) {
    await undo();
    throw e;
  }
}

/** What the demo prints once it runs: where things are and what to try. */
export function demoGuide(run: DemoRun, self = "the-loop"): string[] {
  const ref = `github:${run.repo}#${DEMO_ITEM}`;
  const c = `${self} -c ${run.config}`;
  const lines = [
    `the-loop demo: the whole loop on this machine (nothing reaches GitHub), in ${run.dir}`,
    `  GitHub    a fake one on ${run.apiUrl}, with ${run.repo} (a real git repository); you are @${run.user}`,
    `  daemon    ${run.daemon} start (pid ${run.daemonPid}); its output: ${run.dir}/daemon.log`,
    `  agent     the demo agent, run as \`claude\`, ${
      run.tmuxSocket
        ? `in tmux (private server \`tmux -L ${run.tmuxSocket}\`)`
        : "headless (no tmux here)"
    }`,
    `  page      ${run.pageUrl ?? "(none)"}`,
    "",
    `${ref} was started by @${run.user}'s comment: its session starts, the agent asks you a question.`,
    "Try, in another shell:",
    `  ${c} sessions list                       # the session, awaiting your answer`,
  ];
  if (run.tmuxSocket) {
    lines.push(
      `  tmux -L ${run.tmuxSocket} attach -t loop-github-${
        run.repo.replace("/", "-")
      }-${DEMO_ITEM}   # watch the agent (Ctrl-b d leaves)`,
    );
  }
  lines.push(
    `  ${c} reply ${ref} --actor ${run.user} --text "fix its timing"   # answer it: the agent commits, then asks for a review`,
    `  ${self} demo comment ${DEMO_ITEM} "the-loop:approve"        # approve at the gate, as @${run.user}`,
    `  ${self} demo close ${DEMO_ITEM}                             # close the issue: the session ends`,
    `  ${c} events --follow                      # everything the daemon decides`,
    "Ctrl+C stops everything.",
  );
  return lines;
}
