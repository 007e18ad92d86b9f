/**
 * The loops end-to-end fixture: the fake GitHub, a project whose config points at it (routing
 * on, the tmux runner on a private tmux server), a command hook recording every `phase_changed`
 * and `waiting_for_input` context (it answers `{"notify": false}` for one chosen node and
 * rewrites an agent's question), fake `claude`s that act (`FAKE_HARNESS_ACT`: each runs the
 * `the-loop advance --outcome O` its prompt spells out, from inside its session), and the two
 * daemons run as the real CLI: `poll start` (a cycle every second) and `gh-webhook start`
 * (signed deliveries of the world's changes). The scenarios both daemons run are here too.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeGitHub } from "./fake_github/mod.ts";
import {
  fakeHarnessPath,
  type HarnessLogEntry,
  pathWithFakes,
  ranCommands,
  readHarnessLog,
} from "./fake_harness/mod.ts";
import {
  cli,
  type CliResult,
  cliSchema,
  readOutput,
  spawnCli,
  tree,
  until,
} from "./_test_utils.ts";

export const REPO = "octo/repo";
export const LABEL = "the-loop: auto-execute";
export const TOKEN = "t0k-loops-e2e";
export const SECRET = "loops-e2e-webhook-secret";
export const MARK = "<!-- the-loop:agent-comment -->";
export const START = "the-loop:start-execution";
export const APPROVE = "the-loop:approve";
/** The question `FAKE_HARNESS_ASK` has the agent ask, and what the hook makes of it. */
export const QUESTION = "Which database should I use?";
export const REWRITTEN = `REWRITTEN: ${QUESTION}`;
/** The node whose entry the recording hook answers `{"notify": false}`. */
export const QUIET_NODE = "design";

/** `pdlc`'s nodes in walking order (each its own phase). */
export const PDLC = [
  "requirements",
  "requirements-review",
  "design",
  "design-review",
  "implementation",
  "implementation-review",
  "done",
] as const;
/** `pdlc`'s human nodes (its gates), in walking order. */
export const GATES = ["requirements-review", "design-review", "implementation-review"] as const;

/**
 * The command hook: appends its whole stdin (`{"point", "context"}`) as one line to the file
 * its first argument names; answers `{"notify": false}` to the `phase_changed` entering the
 * node its second argument names, and rewrites an agent's question.
 */
const RECORDER = `#!/usr/bin/env python3
import json
import sys

call = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(call) + "\\n")
ctx = call["context"]
if call["point"] == "phase_changed" and ctx.get("to_node") == sys.argv[2]:
    print(json.dumps({"notify": False}))
elif call["point"] == "waiting_for_input" and ctx.get("kind") == "question":
    print(json.dumps({"question": "REWRITTEN: " + ctx["question"], "summary": "asked"}))
`;

function configText(
  o: { apiUrl: string; calls: string; extra: string; runner: string; routing: string },
): string {
  return `github:
  apiUrl: ${o.apiUrl}
  tokenEnv: LOOPS_E2E_TOKEN
webhooks:
  ghWebhook:
    routing:
      enabled: true
      authorizedUsers: [alice]
      spawnOnUnmatched: labeled
      runner: ${o.runner}
      # the fake's own variables (the daemon's environment reaches it only by name)
      harnessEnv:
        pass: [FAKE_HARNESS_LOG, FAKE_HARNESS_ACT, FAKE_HARNESS_ASK, FAKE_HARNESS_COST, FAKE_HARNESS_TOKENS]
      tmux:
        harnessKillGraceSeconds: 2
      workspace:
        enabled: false
${o.routing}polling:
  intervalSeconds: 1
  sources:
    - provider: github
      repos: [${REPO}]
hooks:
  - name: recorder
    command: [./hooks/recorder.py, ${o.calls}, ${QUIET_NODE}]
    on: [phase_changed, waiting_for_input]
${o.extra}`;
}

/** One line of the recording hook's file. */
export interface HookCall {
  point: string;
  context: Record<string, unknown>;
}

/** Options of {@linkcode LoopsE2E.open}. */
export interface OpenOptions {
  /** The fake harness's extra variables (`FAKE_HARNESS_ACT`, `FAKE_HARNESS_ASK`). */
  harness?: Record<string, string>;
  /** Appended to the config (top-level keys, e.g. `loops:`). */
  extraConfig?: string;
  /** `routing.runner` (default tmux). */
  runner?: "tmux" | "process";
  /** Appended to `webhooks.ghWebhook.routing` (keys indented by six spaces). */
  routing?: string;
}

/** The project, the fake GitHub and the private tmux server of one test. */
export class LoopsE2E {
  readonly gh: FakeGitHub;
  readonly dir: string;
  readonly home: string;
  readonly socket = `loops-e2e-${crypto.randomUUID().slice(0, 8)}`;
  readonly harnessLog: string;
  readonly callsFile: string;
  readonly env: Record<string, string>;
  readonly #daemons: Daemon[] = [];

  private constructor(
    gh: FakeGitHub,
    dir: string,
    home: string,
    calls: string,
    harness: Record<string, string>,
  ) {
    this.gh = gh;
    this.dir = dir;
    this.home = home;
    this.harnessLog = join(home, "harness.jsonl");
    this.callsFile = calls;
    this.env = {
      HOME: home,
      PATH: pathWithFakes(),
      FAKE_HARNESS_LOG: this.harnessLog,
      LOOPS_E2E_TOKEN: TOKEN,
      THE_LOOP_GH_WEBHOOK_SECRET: SECRET,
      THE_LOOP_TMUX_SOCKET: this.socket,
      TMUX_TMPDIR: home,
      ...harness,
    };
  }

  /** The fake GitHub with `octo/repo`, the project, its recording hook. */
  static async open(o: OpenOptions = {}): Promise<LoopsE2E> {
    const gh = await FakeGitHub.start({ token: TOKEN });
    gh.world.addRepo(REPO);
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "loops-e2e-home-" }));
    const calls = join(home, "hook-calls.jsonl");
    const dir = tree({
      ".the-loop/cli-config.yaml": configText({
        apiUrl: gh.url,
        calls,
        extra: o.extraConfig ?? "",
        runner: o.runner ?? "tmux",
        routing: o.routing ?? "",
      }),
      ".the-loop/hooks/recorder.py": [RECORDER, 0o755],
    });
    return new LoopsE2E(gh, dir, home, calls, o.harness ?? {});
  }

  get root(): string {
    return join(this.dir, ".the-loop");
  }

  /** `github:octo/repo#<n>`. */
  ref(n: number): string {
    return `github:${REPO}#${n}`;
  }

  slug(n: number): string {
    return `github-${REPO.replace("/", "-")}-${n}`;
  }

  /** Runs the real CLI in the project with the fixture's environment. */
  cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return cli(args, { cwd: this.dir, env: { ...this.env, ...env } });
  }

  /** The position file as the daemon wrote it (`undefined` while there is none). */
  async position(n: number): Promise<Record<string, unknown> | undefined> {
    try {
      return JSON.parse(await Deno.readTextFile(join(this.root, "loops", `${this.slug(n)}.json`)));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  /** `the-loop loops show REF --format json`: the item's position, as the operator sees it. */
  async show(n: number): Promise<Record<string, unknown>> {
    const r = ok(await this.cli(["loops", "show", this.ref(n), "--format", "json"]));
    const doc = JSON.parse(r.stdout);
    return (doc.position ?? doc) as Record<string, unknown>;
  }

  /** The registry record of the item (`undefined` while there is none). */
  async record(n: number): Promise<Record<string, unknown> | undefined> {
    try {
      return JSON.parse(
        await Deno.readTextFile(join(this.root, "sessions", `${this.slug(n)}.json`)),
      );
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
  }

  /** `sessions list --format json` (checked against its schema): the item's entry. */
  async listed(n: number): Promise<Record<string, unknown>> {
    const r = ok(await this.cli(["sessions", "list", "--format", "json"]));
    const doc = JSON.parse(r.stdout);
    (await cliSchema("sessions-list"))(doc);
    const entry = doc.sessions.find((s: { ref: string }) => s.ref === this.ref(n));
    assert.ok(entry, `sessions list names ${this.ref(n)}: ${r.stdout}`);
    return entry;
  }

  /** The event log's records. */
  events(): Promise<Record<string, unknown>[]> {
    return jsonl(join(this.root, "logs", "events.jsonl"));
  }

  /** The recording hook's calls, for item `n`, in the order they ran. */
  async hookCalls(n: number): Promise<HookCall[]> {
    const calls = (await jsonl(this.callsFile)) as unknown as HookCall[];
    return calls.filter((c) => refOf(c.context.work_item) === this.ref(n));
  }

  harness(): Promise<HarnessLogEntry[]> {
    return readHarnessLog(this.harnessLog);
  }

  /** The comments on an item, as the fake GitHub holds them. */
  comments(n: number): { body: string; user: string; id: number }[] {
    // deno-lint-ignore no-explicit-any
    return this.gh.world.item(REPO, n).comments.map((c: any) => ({
      body: c.body,
      user: c.user.login,
      id: c.id,
    }));
  }

  /** The-loop's own (marked) comments on the item. */
  own(n: number): { body: string; user: string; id: number }[] {
    return this.comments(n).filter((c) => c.body.includes(MARK));
  }

  /** The item's `loop:` labels, as the fake GitHub holds them now. */
  loopLabels(n: number): string[] {
    // deno-lint-ignore no-explicit-any
    return this.gh.world.item(REPO, n).issue.labels.map((l: any) => String(l.name))
      .filter((name: string) => name.startsWith("loop:"));
  }

  /** Every `loop:` label added to (`labeled`) or removed from (`unlabeled`) the item, in order. */
  labelChanges(n: number, action: "labeled" | "unlabeled"): string[] {
    return this.gh.world.changes
      .filter((c) =>
        c.event === "issues" && c.action === action && c.payload.issue?.number === n &&
        String(c.payload.label?.name).startsWith("loop:")
      )
      .map((c) => String(c.payload.label.name));
  }

  /** A labelled issue by alice. */
  openIssue(more: string[] = []): number {
    return this.gh.world.addIssue(REPO, { user: "alice", labels: [LABEL, ...more] }).number;
  }

  /** `poll start --interval 1`, once it printed its ready line. */
  async poll(): Promise<Daemon> {
    const child = spawnCli(["poll", "start", "--interval", "1"], { cwd: this.dir, env: this.env });
    const d = new Daemon(this, "poll", child);
    this.#daemons.push(d);
    await d.ready(/^poll: started \(pid \d+/m);
    return d;
  }

  /** `gh-webhook start --port 0`, once it printed where it listens. */
  async webhook(): Promise<Daemon> {
    const child = spawnCli(["gh-webhook", "start", "--port", "0"], {
      cwd: this.dir,
      env: this.env,
    });
    const d = new Daemon(this, "gh-webhook", child);
    this.#daemons.push(d);
    const m = await d.ready(
      /^gh-webhook: listening on (http:\/\/127\.0\.0\.1:\d+\/gh-webhook) \(pid \d+\)$/m,
    );
    d.url = m[1];
    return d;
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

  /**
   * Stops every daemon still running, kills the tmux server, stops the fake GitHub, removes the
   * files (`LOOPS_E2E_KEEP=1` keeps them).
   */
  async close(): Promise<void> {
    for (const d of this.#daemons) await d.stop();
    await this.tmux("kill-server");
    await this.gh.close();
    if (Deno.env.get("LOOPS_E2E_KEEP")) {
      console.error(`kept: ${this.dir} ${this.home}`);
      return;
    }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
    await Deno.remove(this.home, { recursive: true }).catch(() => {});
  }
}

/** A work item's ref, from a context's `work_item` (a WorkItem, or a bare ref). */
function refOf(w: unknown): string {
  if (typeof w === "string") return w;
  return String((w as { ref?: unknown } | null)?.ref ?? "");
}

/** A running daemon: `step()` hands it the world's changes made since the last step. */
export class Daemon {
  url = "";
  readonly #out: { out: { stdout: string; stderr: string }; done: Promise<void> };
  #stopped = false;

  constructor(
    readonly fx: LoopsE2E,
    readonly kind: "poll" | "gh-webhook",
    readonly child: Deno.ChildProcess,
  ) {
    this.#out = readOutput(child);
  }

  get out(): { stdout: string; stderr: string } {
    return this.#out.out;
  }

  /** Waits for the ready line (failing at once when the daemon exited first). */
  async ready(line: RegExp): Promise<RegExpExecArray> {
    let exited: number | undefined;
    this.child.status.then((s) => (exited = s.code));
    let m: RegExpExecArray | null = null;
    await waitFor(`the ${this.kind} ready line`, () => {
      m = line.exec(this.out.stdout);
      if (!m && exited !== undefined) {
        throw new Error(`${this.kind} exited ${exited}:\n${this.out.stdout}${this.out.stderr}`);
      }
      return m !== null;
    }, () => this.out);
    return m!;
  }

  /**
   * Hands the daemon the changes made since the last step: a poller runs two more cycles (the
   * second began after the changes), a receiver gets each as a signed delivery (202 each).
   */
  async step(): Promise<void> {
    if (this.kind === "gh-webhook") {
      const sent = await this.fx.gh.deliver(this.url, { secret: SECRET });
      for (const s of sent) assert.equal(s.status, 202, `${s.change.event}: ${s.body}`);
      return;
    }
    const cycles = async () => (await this.fx.events()).filter((e) => e.event === "poll.cycle");
    const before = (await cycles()).length;
    await waitFor("two more poll cycles", async () => (await cycles()).length >= before + 2);
  }

  /** SIGKILL, and the exit. */
  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.child.status;
    await this.#out.done;
    this.#stopped = true;
  }

  /** SIGTERM and the exit (a no-op once stopped). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    try {
      this.child.kill("SIGTERM");
    } catch { /* already gone */ }
    await this.child.status;
    await this.#out.done;
  }
}

/** Asserts exit 0, saying what the CLI printed otherwise. */
export function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

async function jsonl(path: string): Promise<Record<string, unknown>[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  // a line being appended may be cut short: only whole lines count
  const lines = text.split("\n");
  lines.pop();
  return lines.filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/**
 * Waits (with `until`) for `check`; the bound only fails a hung test, then with what `context`
 * says of the state it saw.
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  context: () => unknown = () => "",
  ms = 45_000,
): Promise<void> {
  try {
    await until(what, check, ms);
  } catch (err) {
    throw new Error(`${(err as Error).message}; saw: ${JSON.stringify(await context())}`);
  }
}

// ---- the scenarios ----

/** What a spawn left: the item's number and the harness's boot entry. */
export interface Spawned {
  n: number;
  boot: HarnessLogEntry;
}

/** Waits until the item's position stands at `node`; returns it. */
export async function waitNode(
  fx: LoopsE2E,
  n: number,
  node: string,
): Promise<Record<string, unknown>> {
  let pos: Record<string, unknown> | undefined;
  await waitFor(
    `${fx.ref(n)} at ${node}`,
    async () => (pos = await fx.position(n))?.node === node,
    () => pos,
  );
  return pos!;
}

/** The request comments the-loop posted for `gate` (marked, naming the node and the keyword). */
export function gateRequests(fx: LoopsE2E, n: number, gate: string) {
  return fx.own(n).filter((c) =>
    new RegExp(`\\b${gate}\\b`).test(c.body) && c.body.includes(APPROVE)
  );
}

/**
 * Waits until the item waits at `gate`: the position there, waiting since a time, its one
 * request comment posted (the label was published before it).
 */
export async function waitGate(fx: LoopsE2E, n: number, gate: string): Promise<void> {
  const pos = await waitNode(fx, n, gate);
  assert.equal(typeof pos.waitingSince, "string", `waiting since a time: ${JSON.stringify(pos)}`);
  await waitFor(
    `the request comment of ${gate}`,
    () => gateRequests(fx, n, gate).length > 0,
    () => fx.comments(n),
  );
  const requests = gateRequests(fx, n, gate);
  assert.equal(requests.length, 1, `one request: ${JSON.stringify(fx.own(n))}`);
  assert.ok(requests[0].body.includes("the-loop:request-changes"), requests[0].body);
  assert.equal(requests[0].user, "the-loop-bot");
}

/**
 * The start comment by alice (`loop=NAME` after the keyword when `loop` is given) spawns the
 * item's session, which boots on the start node with its own environment.
 */
export async function startItem(
  fx: LoopsE2E,
  d: Daemon,
  n: number,
  loop?: string,
): Promise<Spawned> {
  fx.gh.world.addComment(REPO, n, loop ? `${START} loop=${loop}` : START, "alice");
  await d.step();
  let boots: HarnessLogEntry[] = [];
  await waitFor(
    `the boot of #${n}`,
    async () =>
      (boots = (await fx.harness()).filter((e) => e.event === "boot" && e.mode === "interactive"))
        .length > 0,
    () => fx.harness(),
  );
  assert.equal(boots.length, 1, "exactly one harness boots");
  const [boot] = boots;
  // the session's own environment: its item, its capability, the daemon's socket, the launcher
  const env = boot.environ ?? {};
  assert.equal(env.THE_LOOP_WORK_ITEM, fx.ref(n));
  assert.ok((env.THE_LOOP_SESSION ?? "").length >= 16, "a capability in the session's env");
  assert.equal(env.THE_LOOP_CONTROL, join(fx.root, `${d.kind}.sock`));
  // (a pyenv shim running the fake's python may put its own folders before the daemon's PATH)
  const dirs = (env.PATH ?? "").split(":");
  const bin = dirs.indexOf(join(fx.root, "bin"));
  assert.ok(
    bin >= 0 && bin < dirs.indexOf(fakeHarnessPath()) && bin < dirs.indexOf("/usr/bin"),
    `the launcher's folder before the rest of the daemon's PATH: ${env.PATH}`,
  );
  for (const name of ["LOOPS_E2E_TOKEN", "THE_LOOP_GH_WEBHOOK_SECRET"]) {
    assert.equal(env[name], undefined, `${name} never reaches the agent`);
  }
  assert.ok(!Object.values(env).some((v) => v.includes(TOKEN) || v.includes(SECRET)));
  return { n, boot };
}

/** The `the-loop` the daemon puts first on a session's PATH. */
function launcher(fx: LoopsE2E): string {
  return join(fx.root, "bin", "the-loop");
}

/** Comments `body` as `login` and hands it to the daemon. */
async function comment(fx: LoopsE2E, d: Daemon, n: number, body: string, login: string) {
  fx.gh.world.addComment(REPO, n, body, login);
  await d.step();
}

/** How many of mallory's events on the item the daemon dropped (not authorized). */
async function strangerDrops(fx: LoopsE2E, n: number): Promise<number> {
  return (await fx.events()).filter((e) =>
    e.actor === "mallory" &&
    (e.event === "routing.dropped" || e.event === "poll.unauthorized") &&
    (e.work_item === fx.ref(n) || (Array.isArray(e.work_items) && e.work_items.includes(fx.ref(n))))
  ).length;
}

/**
 * The walk: an item labelled and started with `loop=pdlc` by alice enters `requirements`; at each
 * agent node the agent runs `the-loop advance --outcome done` from its session, at each gate a
 * stranger's `the-loop:approve` changes nothing and alice's moves it on, until `done`.
 */
export async function walkPdlc(fx: LoopsE2E, d: Daemon): Promise<Spawned> {
  const n = fx.openIssue();
  await d.step(); // a poller's first cycle baselines the labelled item; nothing boots yet
  const s = await startItem(fx, d, n, "pdlc");
  let entered: Record<string, unknown> | undefined;
  await waitFor(
    `${fx.ref(n)} in its loop`,
    async () => (entered = await fx.position(n)) !== undefined,
  );
  assert.equal(entered?.loop, "pdlc", JSON.stringify(entered));
  for (const gate of GATES) {
    await waitGate(fx, n, gate);
    assert.deepEqual(fx.loopLabels(n), [`loop:${gate}`], `exactly one loop label at ${gate}`);
    // a stranger's approval is not read: the gate keeps waiting
    const dropped = await strangerDrops(fx, n);
    await comment(fx, d, n, APPROVE, "mallory");
    await waitFor(
      `mallory's approval at ${gate} dropped`,
      async () => (await strangerDrops(fx, n)) > dropped,
      () => fx.events().then((es) => es.slice(-15)),
    );
    const shown = await fx.show(n);
    assert.equal(
      shown.node,
      gate,
      `a stranger's approval changes nothing: ${JSON.stringify(shown)}`,
    );
    assert.equal(shown.status, "active");
    // alice's approval moves it to the next stage
    await comment(fx, d, n, APPROVE, "alice");
    await waitFor(
      `${fx.ref(n)} past ${gate}`,
      async () => {
        const node = (await fx.position(n))?.node;
        return typeof node === "string" &&
          PDLC.indexOf(node as typeof PDLC[number]) > PDLC.indexOf(gate);
      },
      () => fx.position(n),
    );
  }
  const final = await fx.show(n);
  assert.equal(final.node, "done", JSON.stringify(final));
  assert.equal(final.status, "completed", JSON.stringify(final));
  assert.equal(final.waitingSince, null);
  await waitFor(
    "the loop:done label",
    () => fx.loopLabels(n).includes("loop:done"),
    () => fx.loopLabels(n),
  );
  assert.deepEqual(fx.loopLabels(n), ["loop:done"], "exactly one loop label at the end");
  // the agent ran each agent node's claim itself, from the one session, each accepted, through
  // the daemon's launcher
  const ran = await claimsAnswered(fx, 3);
  for (const r of ran) assert.equal(r.path, launcher(fx), JSON.stringify(r));
  assert.deepEqual(
    ran.map((r) => [r.argv?.join(" "), r.exit, r.pid]),
    ["requirements", "design", "implementation"].map(() => [
      "the-loop advance --outcome done",
      0,
      s.boot.pid,
    ]),
    JSON.stringify(ran),
  );
  // the history: who moved it, with which outcome
  const history = (final.history ?? []) as { kind: string; from: string; to: string; by: string }[];
  assert.deepEqual(
    history.map((h) => [h.kind, h.from, h.to, h.by]),
    [
      ["enter", "", "requirements", "the-loop"],
      ["agent", "requirements", "requirements-review", "agent"],
      ["gate", "requirements-review", "design", "alice"],
      ["agent", "design", "design-review", "agent"],
      ["gate", "design-review", "implementation", "alice"],
      ["agent", "implementation", "implementation-review", "agent"],
      ["gate", "implementation-review", "done", "alice"],
    ],
  );
  // the keyword comments were consumed, not delivered as comments: the agent was told each
  // verdict as it entered the next node, and nothing of the stranger's reached it
  // (the last verdict's prompt is delivered after the move, not waited for by it: wait for it)
  const told = async () =>
    (await fx.harness()).filter((e) => e.event === "input" && e.pid === s.boot.pid)
      .map((e) => e.line ?? "").join("\n");
  const notes = GATES.map((gate) =>
    `@alice resolved the review at \`${gate}\` with the verdict \`approve\``
  );
  await waitFor(
    "each verdict told to the agent",
    async () => {
      const text = await told();
      return notes.every((note) => text.includes(note));
    },
    told,
  );
  assert.ok(!(await told()).includes("mallory"), "nothing of mallory's reached the agent");
  assert.equal(
    (await fx.harness()).filter((e) => e.event === "boot").length,
    1,
    "one harness throughout",
  );
  return s;
}

/** The facts of `phase_changed` the seed names, for one move. */
function phase(
  from: string,
  to: string,
  outcome: string,
  actor: string,
  terminal = false,
): Record<string, unknown> {
  return {
    point: "phase_changed",
    loop: "pdlc",
    from_node: from,
    to_node: to,
    from_phase: from,
    to_phase: to,
    outcome,
    actor,
    terminal,
  };
}

/** The facts of `waiting_for_input` at a gate. */
function gateWait(node: string): Record<string, unknown> {
  return { point: "waiting_for_input", kind: "gate", node, actor: "", loop: "pdlc" };
}

/**
 * After {@linkcode walkPdlc}: the hook saw the seed's facts in the seed's order (`phase_changed`
 * on entering the start node, `waiting_for_input` after the `phase_changed` into each gate), and
 * its `notify: false` for the entry into {@linkcode QUIET_NODE} kept exactly that label off.
 */
export async function hooksSawTheWalk(fx: LoopsE2E, n: number): Promise<void> {
  const expected = [
    phase("", "requirements", "", "agent"),
    phase("requirements", "requirements-review", "done", "human"),
    gateWait("requirements-review"),
    phase("requirements-review", "design", "approve", "agent"),
    phase("design", "design-review", "done", "human"),
    gateWait("design-review"),
    phase("design-review", "implementation", "approve", "agent"),
    phase("implementation", "implementation-review", "done", "human"),
    gateWait("implementation-review"),
    phase("implementation-review", "done", "approve", "", true),
  ];
  const calls = await fx.hookCalls(n);
  const facts = calls.map((c) => {
    const keys = Object.keys(c.point === "phase_changed" ? expected[0] : expected[2])
      .filter((k) => k !== "point");
    return { point: c.point, ...Object.fromEntries(keys.map((k) => [k, c.context[k]])) };
  });
  assert.deepEqual(facts, expected);
  for (const c of calls) assert.equal(refOf(c.context.work_item), fx.ref(n));
  // notify: false stopped the label of that one move, and only that one
  const quiet = `loop:${QUIET_NODE}`;
  assert.deepEqual(
    fx.labelChanges(n, "labeled"),
    PDLC.filter((p) => p !== QUIET_NODE).map((p) => `loop:${p}`),
    "every phase published once, but the one the hook silenced",
  );
  assert.ok(!fx.labelChanges(n, "unlabeled").includes(quiet));
  const silenced = (await fx.events()).filter((e) =>
    e.work_item === fx.ref(n) && e.notified === false
  );
  assert.equal(silenced.length, 1, `one move says notified: false: ${JSON.stringify(silenced)}`);
}

/**
 * Ask: the agent (`FAKE_HARNESS_ASK`) asks from its session; the `waiting_for_input` hook rewrites
 * the question, which one marked comment carries; `sessions list` shows the wait; alice's next
 * comment reaches the same session framed as the answer, and the wait closes.
 */
export async function askAndAnswer(fx: LoopsE2E, d: Daemon): Promise<void> {
  const n = fx.openIssue();
  await d.step();
  const s = await startItem(fx, d, n); // routing.loop's default: adhoc
  await waitFor(
    "the agent's ask to end",
    async () => ranCommands(await fx.harness()).some((r) => r.argv?.[1] === "ask"),
    () => fx.harness(),
  );
  const [asked] = ranCommands(await fx.harness()).filter((r) => r.argv?.[1] === "ask");
  assert.equal(asked.exit, 0, JSON.stringify(asked));
  assert.equal(asked.path, launcher(fx));
  assert.equal(asked.pid, s.boot.pid);
  // the hook was asked with the agent's words, and rewrote them
  const waits = (await fx.hookCalls(n)).filter((c) => c.point === "waiting_for_input");
  assert.equal(waits.length, 1, JSON.stringify(waits));
  assert.equal(waits[0].context.kind, "question");
  assert.equal(waits[0].context.question, QUESTION);
  assert.equal(waits[0].context.node, "");
  assert.equal(waits[0].context.loop, "adhoc");
  const questions = fx.own(n).filter((c) => c.body.includes(QUESTION));
  assert.equal(questions.length, 1, JSON.stringify(fx.own(n)));
  assert.ok(questions[0].body.includes(REWRITTEN), questions[0].body);
  const waiting = await fx.listed(n);
  const awaiting = waiting.awaitingInput as { question?: string; since?: string } | undefined;
  assert.equal(awaiting?.question, REWRITTEN, JSON.stringify(waiting));
  assert.equal(typeof awaiting?.since, "string");
  // alice's next comment is the answer, into the same session
  await comment(fx, d, n, "Use SQLite ANSWER-4242", "alice");
  const lines = async () =>
    (await fx.harness()).filter((e) => e.event === "input" && e.pid === s.boot.pid)
      .map((e) => e.line ?? "");
  await waitFor(
    "the answer in the session",
    async () => (await lines()).some((l) => l.includes("ANSWER-4242")),
    lines,
  );
  const all = await lines();
  const framed = all.findIndex((l) =>
    /Answer from @alice to your question ".*Which database should I use\?.*":/.test(l)
  );
  assert.ok(framed >= 0, `framed as the answer: ${JSON.stringify(all)}`);
  assert.ok(framed <= all.findIndex((l) => l.includes("ANSWER-4242")), "the frame comes first");
  await waitFor(
    "the wait to close",
    async () => (await fx.record(n))?.awaitingInput == null,
    () => fx.record(n),
  );
  const after = await fx.listed(n);
  assert.equal(after.awaitingInput ?? null, null, JSON.stringify(after));
  assert.equal(
    (await fx.harness()).filter((e) => e.event === "boot").length,
    1,
    "the answer reached the one session; nothing booted another",
  );
}

/** The commands the fake agents ran, once `count` of them have their answer logged. */
async function claimsAnswered(fx: LoopsE2E, count: number) {
  let ran: HarnessLogEntry[] = [];
  await waitFor(
    `${count} claim(s) answered`,
    async () => (ran = ranCommands(await fx.harness())).length >= count,
    () => Promise.resolve(ran),
  );
  return ran;
}

/**
 * A SIGKILL of the daemon while the item waits at a gate keeps its position; alice approves while
 * no daemon runs, and the daemon started again (`restart`) reads the approval and moves the item
 * on: the agent, in the same session, finishes `design` through the new daemon.
 */
export async function killedAtGate(
  fx: LoopsE2E,
  d: Daemon,
  restart: () => Promise<Daemon>,
): Promise<void> {
  const n = fx.openIssue();
  await d.step();
  const s = await startItem(fx, d, n, "pdlc");
  await waitGate(fx, n, "requirements-review");
  // the claim's answer reaches the agent after the move is written: wait for it, so the kill
  // cannot cut the answer off
  await claimsAnswered(fx, 1);
  const before = await fx.position(n);
  await d.kill();
  const kept = await fx.show(n); // no daemon runs: the operator's view reads the file
  assert.equal(kept.node, "requirements-review", JSON.stringify(kept));
  assert.equal(kept.status, "active");
  assert.equal(kept.waitingSince, before?.waitingSince, "still waiting since the same time");
  assert.deepEqual(kept.history, before?.history);
  fx.gh.world.addComment(REPO, n, APPROVE, "alice");
  const again = await restart();
  await again.step();
  await waitGate(fx, n, "design-review");
  assert.deepEqual(fx.loopLabels(n), ["loop:design-review"]);
  const ran = await claimsAnswered(fx, 2);
  assert.deepEqual(
    ran.map((r) => [r.argv?.join(" "), r.exit, r.pid]),
    [0, 1].map(() => ["the-loop advance --outcome done", 0, s.boot.pid]),
    JSON.stringify(ran),
  );
  assert.equal(
    (await fx.harness()).filter((e) => e.event === "boot").length,
    1,
    "the session outlived the daemon: nothing booted another",
  );
  const shown = await fx.show(n);
  const history = (shown.history ?? []) as { kind: string; to: string; by: string }[];
  assert.deepEqual(
    history.map((h) => [h.kind, h.to, h.by]),
    [
      ["enter", "requirements", "the-loop"],
      ["agent", "requirements-review", "agent"],
      ["gate", "design", "alice"],
      ["agent", "design-review", "agent"],
    ],
  );
}
