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
      # the fake harness's own variables (the daemon's environment reaches it only by name)
      harnessEnv: { pass: [FAKE_HARNESS_LOG, FAKE_HARNESS_SLEEP_MS] }
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

/**
 * Whether the process runs (a zombie counts as gone). Asked of `ps`: a test without
 * `--allow-all` may not read `/proc/<pid>`.
 */
export async function running(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return out.code === 0 && stat !== "" && !stat.startsWith("Z");
}

/** Waits until the process is gone. */
export async function waitGone(pid: number): Promise<void> {
  await waitFor(`process ${pid} to end`, async () => !(await running(pid)));
}

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
export interface SessionFile {
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
  async record(n: number, repo = REPO): Promise<SessionFile | undefined> {
    const file = join(this.root, "sessions", `github-${repo.replace("/", "-")}-${n}.json`);
    try {
      return JSON.parse(await Deno.readTextFile(file));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
  }

  /** Waits for the item's record to have `status`. */
  async waitStatus(n: number, status: string, repo = REPO): Promise<SessionFile> {
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
  reactionsOn(n: number, commentId: number, repo = REPO): string[] {
    const world = this.gh.world;
    // deno-lint-ignore no-explicit-any
    const comment = world.item(repo, n).comments.find((c: any) => c.id === commentId);
    // deno-lint-ignore no-explicit-any
    return comment ? world.reactionsOf(comment).map((r: any) => String(r.content)) : [];
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

  /** Kills the tmux server, stops the fake GitHub, removes the files (`LOOP_E2E_KEEP=1` keeps them). */
  async close(): Promise<void> {
    if (Deno.env.get("LOOP_E2E_KEEP")) {
      console.error(`kept: ${this.dir} ${this.home} (tmux -L ${this.socket})`);
      await this.gh.close();
      return;
    }
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

// ---- the scenarios both daemons run ----

/** How a test hands the world's changes to the daemon under test. */
export interface Drive {
  /** Delivers the changes made since the last step (a webhook delivery, a poll cycle). */
  step(): Promise<void>;
}

/** Comments by the-loop (marked as its own). */
export function ownComments(loop: Loop, n: number, repo = REPO) {
  return loop.comments(n, repo).filter((c) => c.body.includes(MARK));
}

/** Labelled issues (#1 alice's, #2 bob's, #3 for the CLI stop, and the quiet repository's #1). */
export async function openIssues(loop: Loop, drive: Drive): Promise<void> {
  const w = loop.gh.world;
  for (let i = 1; i <= 3; i++) w.addIssue(REPO, { user: "alice", labels: [LABEL] });
  w.addIssue(QUIET_REPO, { user: "alice", labels: [LABEL] });
  await drive.step(); // an armed item without a start spawns nothing yet (a poller baselines)
  assert.deepEqual(await loop.harness(), [], "nothing boots before a start");
}

/** What a spawn left: the harness's boot entry and the start comment's id. */
export interface Spawned {
  boot: HarnessLogEntry;
  startId: number;
}

/**
 * Scenario 1: label + start by alice spawns exactly one session in its own worktree, booted on
 * the rendered prompt the prompt hook rewrote; the registry, the announcement, the reactions.
 */
export async function spawnsOne(loop: Loop, drive: Drive, n = 1): Promise<Spawned> {
  const start = loop.gh.world.addComment(REPO, n, `${KEYWORDS.start} please`, "alice");
  await drive.step();
  const record = await loop.waitStatus(n, "active");
  const cwd = loop.worktree(n);
  const boots = await loop.waitHarness(
    `the boot of #${n}`,
    (es) => es.some((e) => e.event === "boot" && e.cwd === cwd),
  );
  const mine = boots.filter((e) => e.event === "boot" && e.cwd === cwd);
  assert.equal(mine.length, 1, "exactly one harness boots");
  const [boot] = mine;
  assert.equal(boot.program, "claude");
  assert.equal(boot.mode, "interactive");
  assert.equal(await git(["-C", cwd, "branch", "--show-current"]), `the-loop/issue-${n}`);
  assert.equal(
    await git(["-C", cwd, "rev-parse", "--show-toplevel"]),
    cwd,
    "a worktree of its own",
  );
  const prompt = boot.argv!.find((a) => a.includes(MARKER));
  assert.ok(prompt, `the prompt hook's marker is in argv: ${JSON.stringify(boot.argv)}`);
  assert.ok(prompt.startsWith(MARKER), "the hook's text comes first");
  assert.ok(prompt.includes(`/the-loop:work-on ${loop.ref(n)}`), prompt);
  assert.equal(record.tmuxTarget, loop.tmuxName(n));
  assert.equal(record.cwd, cwd);
  assert.equal(boot.session, record.harnessSessionId, "the registry names the conversation");
  // harness trust pre-answered the dialog for the workspace root, in the daemon's HOME
  const trust = JSON.parse(await Deno.readTextFile(join(loop.home, ".claude.json")));
  assert.equal(trust.projects?.[loop.workspaceRoot]?.hasTrustDialogAccepted, true);
  const has = await loop.tmux("has-session", "-t", `=${loop.tmuxName(n)}`);
  assert.equal(has.code, 0, has.stderr);
  // the turn ends with 🎉 on the start comment, after 👀; the announcement precedes it
  await waitFor(
    "👀 and 🎉 on the start comment",
    () => loop.reactionsOn(n, start.id).includes("hooray"),
    () => loop.reactionsOn(n, start.id),
  );
  assert.deepEqual(loop.reactionsOn(n, start.id), ["eyes", "hooray"]);
  const announced = ownComments(loop, n).filter((c) => c.body.includes("🖥️"));
  assert.equal(announced.length, 1, JSON.stringify(loop.comments(n)));
  assert.ok(announced[0].body.includes(loop.tmuxName(n)), announced[0].body);
  assert.equal(announced[0].user, "the-loop-bot");
  return { boot, startId: start.id };
}

/** The input lines carrying `word`, in the order the harness read them. */
async function heard(loop: Loop, pid: number, words: string[]): Promise<string[]> {
  const lines = await loop.inputs(pid);
  return lines.flatMap((l) => words.filter((w) => l.includes(w)));
}

/** Waits until the session of `pid` heard `word`. */
async function waitHeard(loop: Loop, pid: number, word: string): Promise<void> {
  await waitFor(
    `the harness to read "${word}"`,
    async () => (await heard(loop, pid, [word])).length > 0,
    () => loop.inputs(pid),
  );
}

/** How many `dispatch.dropped` {reason} the item has so far. */
async function drops(loop: Loop, n: number, reason: string): Promise<number> {
  return (await loop.events()).filter((e) =>
    e.event === "dispatch.dropped" && e.work_item === loop.ref(n) && e.reason === reason
  ).length;
}

/**
 * Scenario 2: alice's later comments reach the same session once each and in order; a stranger's
 * never does.
 */
export async function commentsInOrder(loop: Loop, drive: Drive, s: Spawned, n = 1) {
  const w = loop.gh.world;
  w.addComment(REPO, n, "first comment ALPHA-101", "alice");
  w.addComment(REPO, n, "second comment BRAVO-202", "alice");
  w.addComment(REPO, n, "a stranger's comment MALLORY-666", "mallory");
  w.addComment(REPO, n, "third comment CHARLIE-303", "alice");
  await drive.step();
  await waitHeard(loop, s.boot.pid, "CHARLIE-303");
  await loop.waitEvent("mallory's comment dropped", (e) =>
    e.actor === "mallory" &&
    (e.event === "routing.dropped" || e.event === "poll.unauthorized"));
  const words = ["ALPHA-101", "BRAVO-202", "MALLORY-666", "CHARLIE-303"];
  assert.deepEqual(await heard(loop, s.boot.pid, words), ["ALPHA-101", "BRAVO-202", "CHARLIE-303"]);
  const boots = await loop.boots(n);
  assert.equal(boots.length, 1, "the comments reached the same harness, none booted another");
}

/**
 * Scenario 3: pause and resume by comment, then by the CLI verbs: a comment while paused is never
 * delivered, the one after resume is.
 */
export async function pauseResume(loop: Loop, drive: Drive, s: Spawned, n = 1) {
  const w = loop.gh.world;
  const ref = loop.ref(n);
  w.addComment(REPO, n, KEYWORDS.pause, "alice");
  await drive.step();
  await loop.waitStatus(n, "paused");
  const before = await drops(loop, n, "session-paused");
  w.addComment(REPO, n, "while paused DELTA-404", "alice");
  await drive.step();
  await waitFor(
    "the paused comment dropped",
    async () => (await drops(loop, n, "session-paused")) > before,
  );
  w.addComment(REPO, n, KEYWORDS.resume, "alice");
  await drive.step();
  await loop.waitStatus(n, "active");
  w.addComment(REPO, n, "after resume ECHO-505", "alice");
  await drive.step();
  await waitHeard(loop, s.boot.pid, "ECHO-505");

  // the same by CLI verb
  ok(await loop.cli(["sessions", "pause", ref, "--no-comment", "--as", "alice"]));
  assert.equal((await loop.record(n))?.status, "paused");
  const cliBefore = await drops(loop, n, "session-paused");
  w.addComment(REPO, n, "while paused by cli FOXTROT-606", "alice");
  await drive.step();
  await waitFor(
    "the comment paused by cli dropped",
    async () => (await drops(loop, n, "session-paused")) > cliBefore,
  );
  ok(await loop.cli(["sessions", "resume", ref, "--no-comment", "--as", "alice"]));
  assert.equal((await loop.record(n))?.status, "active");
  w.addComment(REPO, n, "after cli resume GOLF-707", "alice");
  await drive.step();
  await waitHeard(loop, s.boot.pid, "GOLF-707");

  const words = ["ALPHA-101", "BRAVO-202", "CHARLIE-303", "DELTA-404", "ECHO-505"];
  words.push("FOXTROT-606", "GOLF-707");
  assert.deepEqual(await heard(loop, s.boot.pid, words), [
    "ALPHA-101",
    "BRAVO-202",
    "CHARLIE-303",
    "ECHO-505",
    "GOLF-707",
  ]);
  assert.equal((await loop.boots(n)).length, 1, "one harness throughout");
  assert.equal(await running(s.boot.pid), true, "pause never ends the harness");
  const keywords = (await loop.harness()).filter((e) =>
    e.event === "input" && /the-loop:(pause|resume)-execution/.test(e.line ?? "")
  );
  assert.deepEqual(keywords, [], "control keywords are never forwarded");
}

/** Scenario 3 (end): `sessions stop` closes the session and ends its harness. */
export async function stopByCli(loop: Loop, drive: Drive, n = 3) {
  const s = await spawnsOne(loop, drive, n);
  ok(await loop.cli(["sessions", "stop", loop.ref(n), "--no-comment", "--as", "alice"]));
  assert.equal((await loop.record(n))?.status, "closed");
  await waitGone(s.boot.pid);
}

/**
 * Scenario 4: bob is authorized but not on the roster: his start spawns nothing, one marked ⚠️
 * comment names the hook and its reason, `hooks.refused` is logged.
 */
export async function rosterRefuses(loop: Loop, drive: Drive, n = 2) {
  const start = loop.gh.world.addComment(REPO, n, KEYWORDS.start, "bob");
  await drive.step();
  const refused = await loop.waitEvent(
    "hooks.refused for bob",
    (e) => e.event === "hooks.refused" && e.work_item === loop.ref(n),
  );
  assert.deepEqual([refused.point, refused.hook], ["work_item_start", "roster"]);
  assert.match(String(refused.reason), /@bob is not on the e2e roster/);
  const refusals = await waitFor("the refusal comment", () => {
    const own = ownComments(loop, n);
    return own.length > 0 ? own : undefined;
  });
  assert.equal(refusals.length, 1, JSON.stringify(refusals));
  assert.match(
    refusals[0].body,
    /^⚠️ the-loop did not start: roster: @bob is not on the e2e roster/,
  );
  assert.deepEqual(await loop.boots(n), [], "nothing boots");
  assert.equal(await loop.record(n), undefined, "no session is registered");
  assert.equal(start.user.login, "bob");
}

/** The quiet hook keeps the announcement of a spawn in its repository off the issue. */
export async function quietSpawn(loop: Loop, drive: Drive) {
  const start = loop.gh.world.addComment(QUIET_REPO, 1, KEYWORDS.start, "alice");
  await drive.step();
  await loop.waitStatus(1, "active", QUIET_REPO);
  await waitFor(
    "🎉 on the quiet start comment",
    () => loop.reactionsOn(1, start.id, QUIET_REPO).includes("hooray"),
  );
  const cwd = loop.worktree(1, QUIET_REPO);
  await loop.waitHarness(
    "the quiet boot",
    (es) => es.some((e) => e.event === "boot" && e.cwd === cwd),
  );
  assert.equal((await loop.boots(1, QUIET_REPO)).length, 1);
  assert.deepEqual(ownComments(loop, 1, QUIET_REPO), [], "no announcement");
  const events = await loop.events();
  const quiet = events.find((e) =>
    e.event === "hooks.ran" && e.hook === "quiet" && e.work_item === loop.ref(1, QUIET_REPO)
  );
  assert.equal(quiet?.disposition, "decided", JSON.stringify(quiet));
  assert.ok(
    !events.some((e) => e.event === "session.announced" && e.work_item === loop.ref(1, QUIET_REPO)),
  );
}

/**
 * Scenario 5: closing the issue closes the session, ends the harness, keeps the tmux session
 * readable and runs `work_item_complete`.
 */
export async function closeEnds(loop: Loop, drive: Drive, s: Spawned, n = 1) {
  loop.gh.world.close(REPO, n);
  await drive.step();
  await loop.waitStatus(n, "closed");
  await waitGone(s.boot.pid);
  const name = loop.tmuxName(n);
  const has = await loop.tmux("has-session", "-t", `=${name}`);
  assert.equal(has.code, 0, `the tmux session is kept: ${has.stderr}`);
  const dead = await loop.tmux("list-panes", "-t", `=${name}:`, "-F", "#{pane_dead}");
  assert.equal(dead.stdout.trim(), "1", "the pane is kept, its harness ended");
  const pane = await loop.tmux("capture-pane", "-p", "-S", "-", "-t", `=${name}:`);
  assert.equal(pane.code, 0, pane.stderr);
  assert.match(pane.stdout, /fake claude ready/, "the pane's history is still readable");
  assert.match(pane.stdout, /GOLF-707/, "down to the last delivery");
  const complete = await loop.waitEvent(
    "work_item_complete's hooks.ran",
    (e) =>
      e.event === "hooks.ran" && e.point === "work_item_complete" && e.work_item === loop.ref(n),
  );
  assert.deepEqual([complete.hook, complete.disposition], ["prompt-marker", "passed"]);
  await loop.waitEvent(
    "session.autoclosed",
    (e) => e.event === "session.autoclosed" && e.work_item === loop.ref(n),
  );
  assert.equal((await loop.boots(n)).length, 1, "closing never relaunches");
}

/** After every scenario: one boot per spawned session, none for the refused start. */
export async function bootedOncePerSession(loop: Loop) {
  const boots = (await loop.harness()).filter((e) => e.event === "boot").map((e) => e.cwd);
  assert.deepEqual(
    boots.sort(),
    [
      loop.worktree(1, QUIET_REPO),
      loop.worktree(1),
      loop.worktree(3),
    ].sort(),
  );
}

/** The whole scenario, in order, as steps of `t`: the same for both ways in. */
export async function runScenario(t: Deno.TestContext, loop: Loop, drive: Drive): Promise<void> {
  await openIssues(loop, drive); // a poller's first cycle baselines the labelled items
  let spawned!: Spawned;
  await t.step("label + start spawns exactly one session", async () => {
    spawned = await spawnsOne(loop, drive);
  });
  await t.step("later comments reach it once each, in order", async () => {
    await commentsInOrder(loop, drive, spawned);
  });
  await t.step("pause/resume by comment and by CLI verb", async () => {
    await pauseResume(loop, drive, spawned);
  });
  await t.step("a start by a non-roster actor is refused with a comment", async () => {
    await rosterRefuses(loop, drive);
  });
  await t.step("a quiet-announce hook suppresses the announcement", async () => {
    await quietSpawn(loop, drive);
  });
  await t.step("sessions stop closes the session and ends its harness", async () => {
    await stopByCli(loop, drive);
  });
  await t.step("closing the issue closes the session and keeps its pane", async () => {
    await closeEnds(loop, drive, spawned);
  });
  await bootedOncePerSession(loop);
}
