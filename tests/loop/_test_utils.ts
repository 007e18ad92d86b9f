/**
 * The whole loop's end-to-end fixture: the fake GitHub, a project whose config points at it
 * (routing on, the tmux runner on a private tmux server, per-item worktrees cloned from local
 * bare remotes, harness trust into a temp HOME) with three module hooks — a roster
 * (`work_item_start`), a prompt marker (`session_spawn`, and `work_item_complete` to leave a
 * trail) and a quiet announcer (`session_spawned`, for {@linkcode QUIET_REPO} only) — the fake
 * harnesses first on PATH, and the helpers both daemons' tests read the outcome with.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeGitHub } from "../fake_github/mod.ts";
import {
  type HarnessLogEntry,
  pathWithFakes,
  readHarnessLog,
  waitForHarnessLog,
} from "../fake_harness/mod.ts";
import { cli, type CliResult, spawnCli, tree } from "../_test_utils.ts";

export const REPO = "octo/repo";
/** The repository whose spawns the quiet-announce hook keeps silent. */
export const QUIET_REPO = "octo/quiet";
export const LABEL = "the-loop: auto-execute";
export const TOKEN = "t0k-loop-e2e";
export const SECRET = "loop-e2e-webhook-secret";
/** What the prompt hook puts before every boot prompt. */
export const MARKER = "E2E-PROMPT-MARKER: house rules apply";
export const MARK = "<!-- the-loop:agent-comment -->";
export const KEYWORDS = {
  start: "the-loop:start-execution",
  stop: "the-loop:stop-execution",
  pause: "the-loop:pause-execution",
  resume: "the-loop:resume-execution",
};

const ROSTER_HOOK = `import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
export default class Roster extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    const roster = Array.isArray(this.options.roster) ? this.options.roster : [];
    if (roster.includes(ctx.actor)) return;
    return { proceed: false, reason: "@" + ctx.actor + " is not on the e2e roster" };
  }
}
`;

const PROMPT_HOOK = `import {
  LifecycleHooks,
  type SessionSpawn,
  type WorkItemComplete,
} from "@the-loop/hooks";
export default class Marker extends LifecycleHooks {
  override session_spawn(ctx: SessionSpawn) {
    return { prompt: String(this.options.marker) + "\\n\\n" + ctx.prompt };
  }
  override work_item_complete(_ctx: WorkItemComplete) {
    // no decision: the call itself is the trail (hooks.ran)
  }
}
`;

const QUIET_HOOK = `import { LifecycleHooks, type SessionSpawned } from "@the-loop/hooks";
export default class Quiet extends LifecycleHooks {
  override session_spawned(ctx: SessionSpawned) {
    const repos = Array.isArray(this.options.repos) ? this.options.repos : [];
    if (repos.includes(ctx.work_item.repository)) return { announce: false };
  }
}
`;

function configText(o: { apiUrl: string; remotes: string }): string {
  return `github:
  apiUrl: ${o.apiUrl}
  tokenEnv: LOOP_E2E_TOKEN
webhooks:
  ghWebhook:
    routing:
      enabled: true
      authorizedUsers: [alice, bob]
      spawnOnUnmatched: labeled
      runner: tmux
      tmux:
        harnessKillGraceSeconds: 2
      harnessTrust:
        enabled: true
      workspace:
        enabled: true
        remote: ${o.remotes}/{owner}/{repo}.git
polling:
  intervalSeconds: 60
  sources:
    - provider: github
      repos: [${REPO}, ${QUIET_REPO}]
hooks:
  - name: roster
    path: hooks/roster.ts
    on: [work_item_start]
    with: { roster: [alice] }
  - name: prompt-marker
    path: hooks/prompt_marker.ts
    on: [session_spawn, work_item_complete]
    with: { marker: "${MARKER}" }
  - name: quiet
    path: hooks/quiet.ts
    on: [session_spawned]
    with: { repos: [${QUIET_REPO}] }
`;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "E2E",
  GIT_AUTHOR_EMAIL: "e2e@example.invalid",
  GIT_COMMITTER_NAME: "E2E",
  GIT_COMMITTER_EMAIL: "e2e@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Runs git; returns stdout (trimmed), throws with stderr on failure. */
export async function git(args: string[], env: Record<string, string> = {}): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    env: { ...GIT_ENV, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (out.code !== 0) throw new Error(`git ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout).trim();
}

/** A bare repository at `<remotes>/<full>.git` with one commit on `main`. */
async function bareRemote(remotes: string, full: string, home: string): Promise<void> {
  const src = await Deno.makeTempDir({ prefix: "loop-e2e-src-" });
  const env = { HOME: home };
  try {
    await git(["init", "-q", "-b", "main", src], env);
    await Deno.writeTextFile(join(src, "README.md"), `# ${full}\n`);
    await git(["-C", src, "add", "README.md"], env);
    await git(["-C", src, "commit", "-q", "-m", "initial"], env);
    await git(["clone", "-q", "--bare", src, join(remotes, `${full}.git`)], env);
  } finally {
    await Deno.remove(src, { recursive: true });
  }
}

/** Waits (polling) until `probe` gives something truthy; the bound only fails a hung test. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  context: () => unknown = () => "",
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await context())}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function jsonl(path: string): Promise<Record<string, unknown>[]> {
  try {
    return (await Deno.readTextFile(path)).split("\n").filter((l) => l.trim()).map((l) =>
      JSON.parse(l)
    );
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

/** One session record as the registry holds it (the fields these tests read). */
export interface Record_ {
  status: string;
  tmuxTarget: string;
  cwd: string;
  harnessSessionId: string;
}

/** The project, the fake GitHub and the private tmux server of one test. */
export class Loop {
  readonly gh: FakeGitHub;
  readonly dir: string;
  readonly home: string;
  readonly socket = `loop-e2e-${crypto.randomUUID().slice(0, 8)}`;
  readonly harnessLog: string;
  readonly env: Record<string, string>;

  private constructor(gh: FakeGitHub, dir: string, home: string) {
    this.gh = gh;
    this.dir = dir;
    this.home = home;
    this.harnessLog = join(home, "harness.jsonl");
    this.env = {
      HOME: home,
      PATH: pathWithFakes(),
      FAKE_HARNESS_LOG: this.harnessLog,
      LOOP_E2E_TOKEN: TOKEN,
      THE_LOOP_GH_WEBHOOK_SECRET: SECRET,
      THE_LOOP_TMUX_SOCKET: this.socket,
      TMUX_TMPDIR: home,
    };
  }

  /** The fake GitHub, the bare remotes of both repositories, the project and its hooks. */
  static async open(): Promise<Loop> {
    const gh = await FakeGitHub.start({ token: TOKEN });
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "loop-e2e-home-" }));
    const remotes = join(home, "remotes");
    for (const full of [REPO, QUIET_REPO]) {
      gh.world.addRepo(full);
      await bareRemote(remotes, full, home);
    }
    const dir = tree({
      ".the-loop/cli-config.yaml": configText({ apiUrl: gh.url, remotes }),
      ".the-loop/hooks/roster.ts": ROSTER_HOOK,
      ".the-loop/hooks/prompt_marker.ts": PROMPT_HOOK,
      ".the-loop/hooks/quiet.ts": QUIET_HOOK,
    });
    return new Loop(gh, dir, home);
  }

  get root(): string {
    return join(this.dir, ".the-loop");
  }

  get workspaceRoot(): string {
    return join(this.root, "workspaces");
  }

  /** `github:<repo>#<n>`. */
  ref(n: number, repo = REPO): string {
    return `github:${repo}#${n}`;
  }

  /** `loop-github-<owner>-<repo>-<n>`. */
  tmuxName(n: number, repo = REPO): string {
    return `loop-github-${repo.replace("/", "-")}-${n}`;
  }

  /** The registry record of an item (`undefined` while there is none). */
  async record(n: number, repo = REPO): Promise<Record_ | undefined> {
    const file = join(this.root, "sessions", `github-${repo.replace("/", "-")}-${n}.json`);
    try {
      return JSON.parse(await Deno.readTextFile(file));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
  }

  /** Waits for the item's record to have `status`. */
  async waitStatus(n: number, status: string, repo = REPO): Promise<Record_> {
    return await waitFor(
      `${this.ref(n, repo)} to be ${status}`,
      async () => {
        const r = await this.record(n, repo);
        return r?.status === status ? r : undefined;
      },
      () => this.record(n, repo),
    );
  }

  /** The event log's records. */
  events(): Promise<Record<string, unknown>[]> {
    return jsonl(join(this.root, "logs", "events.jsonl"));
  }

  /** Waits until the event log has a record matching `match`; returns it. */
  async waitEvent(
    what: string,
    match: (e: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>> {
    return await waitFor(
      what,
      async () => (await this.events()).find(match),
      async () => (await this.events()).slice(-20),
    );
  }

  harness(): Promise<HarnessLogEntry[]> {
    return readHarnessLog(this.harnessLog);
  }

  waitHarness(
    what: string,
    done: (entries: HarnessLogEntry[]) => boolean,
  ): Promise<HarnessLogEntry[]> {
    return waitForHarnessLog(this.harnessLog, done, { what, timeoutMs: 30_000 });
  }

  /** The `boot` entries whose cwd is the item's worktree. */
  async boots(n: number, repo = REPO): Promise<HarnessLogEntry[]> {
    const cwd = this.worktree(n, repo);
    return (await this.harness()).filter((e) => e.event === "boot" && e.cwd === cwd);
  }

  /** The item's worktree under `workspace.root`. */
  worktree(n: number, repo = REPO): string {
    const [owner, name] = repo.split("/");
    return join(this.workspaceRoot, "github.com", owner, name, String(n));
  }

  /** The input lines the harness with `pid` read. */
  async inputs(pid: number): Promise<string[]> {
    return (await this.harness()).filter((e) => e.event === "input" && e.pid === pid)
      .map((e) => e.line ?? "");
  }

  /** The comments on an item, as the fake GitHub holds them. */
  comments(n: number, repo = REPO): { body: string; user: string; id: number }[] {
    // deno-lint-ignore no-explicit-any
    return this.gh.world.item(repo, n).comments.map((c: any) => ({
      body: c.body,
      user: c.user.login,
      id: c.id,
    }));
  }

  /** The reactions on a comment (their `content`s). */
  reactionsOn(repo: string, n: number, commentId: number): string[] {
    // deno-lint-ignore no-explicit-any
    const reactions = this.gh.world.item(repo, n).reactions as any[];
    return reactions.filter((r) => r.__comment === commentId || r.comment_id === commentId)
      .map((r) => r.content);
  }

  /** Runs `tmux -L <socket> <args>` on the test's private server. */
  async tmux(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out = await new Deno.Command("tmux", {
      args: ["-L", this.socket, ...args],
      env: { TMUX_TMPDIR: this.home },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  }

  /** Runs the real CLI in the project with the loop's environment. */
  cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return cli(args, { cwd: this.dir, env: { ...this.env, ...env } });
  }

  /** `poll start --once`, which must succeed. */
  async pollOnce(): Promise<CliResult> {
    return ok(await this.cli(["poll", "start", "--once"]));
  }

  /** `gh-webhook start --port 0`, once it printed where it listens. */
  async webhook(): Promise<Receiver> {
    const child = spawnCli(["gh-webhook", "start", "--port", "0"], {
      cwd: this.dir,
      env: this.env,
    });
    const out = { stdout: "", stderr: "" };
    const drained = Promise.all([
      drain(child.stdout, (s) => (out.stdout += s)),
      drain(child.stderr, (s) => (out.stderr += s)),
    ]);
    const exited = child.status.then((s) => s.code);
    const ready = await waitFor(
      "the gh-webhook ready line",
      async () => {
        const m = READY.exec(out.stdout);
        if (m) return m;
        const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(r, 1, null))]);
        if (code !== null) throw new Error(`gh-webhook exited ${code}:\n${out.stderr}`);
      },
      () => out,
    );
    return new Receiver(this, child, ready[1], out, drained);
  }

  async close(): Promise<void> {
    await this.tmux("kill-server");
    await this.gh.close();
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
    await Deno.remove(this.home, { recursive: true }).catch(() => {});
  }
}

const READY = /^gh-webhook: listening on (http:\/\/127\.0\.0\.1:\d+\/gh-webhook) \(pid \d+\)$/m;

async function drain(stream: ReadableStream<Uint8Array>, into: (s: string) => void) {
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) into(chunk);
}

/** A running `gh-webhook start`. */
export class Receiver {
  constructor(
    readonly loop: Loop,
    readonly child: Deno.ChildProcess,
    readonly url: string,
    readonly out: { stdout: string; stderr: string },
    readonly drained: Promise<unknown>,
  ) {}

  /** Delivers every world change not yet delivered; each must be accepted. */
  async deliver(): Promise<void> {
    const sent = await this.loop.gh.deliver(this.url, { secret: SECRET });
    for (const s of sent) assert.equal(s.status, 202, `${s.change.event}: ${s.body}`);
  }

  /** SIGTERM, and the exit. */
  async stop(): Promise<void> {
    try {
      this.child.kill("SIGTERM");
    } catch { /* already gone */ }
    await this.child.status;
    await this.drained;
  }
}

/** Asserts exit 0, saying what the CLI printed otherwise. */
export function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** Whether a process with `pid` is running (a zombie counts as gone). */
export { processExists, waitForExit } from "../fake_harness/mod.ts";
