/**
 * `the-loop sessions …` end to end: the real CLI over a real registry folder, the fake GitHub for
 * the control verbs' paper trail, and a real module hook for the `input_received` gate.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, type CliResult, tree } from "./_test_utils.ts";
import { FakeGitHub } from "./fake_github/mod.ts";

const REF = "github:octo/repo#1";
const SLUG = "github-octo-repo-1";
const TOKEN = "t0k-sessions";

/** A project whose config points GitHub at `apiUrl` (default: nowhere reachable). */
function project(extra = "", apiUrl = "http://127.0.0.1:9"): string {
  return tree({
    "c.yaml": `github: { apiUrl: "${apiUrl}", tokenEnv: SESSIONS_TOKEN }\n${extra}`,
  });
}

const run = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  cli(["-c", "c.yaml", "sessions", ...args], { cwd, env: { THE_LOOP_ACTOR: "alice", ...env } });

const registry = (cwd: string) => join(cwd, ".the-loop", "sessions");
const sessionFile = (cwd: string, slug = SLUG) => join(registry(cwd), `${slug}.json`);
const controlFile = (cwd: string, slug = SLUG) => join(registry(cwd), "control", `${slug}.json`);
const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(path));
const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

async function events(cwd: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(cwd, ".the-loop", "logs", "events.jsonl"));
  return text.trim().split("\n").map((l) => JSON.parse(l));
}

function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

const register = (cwd: string, ref = REF, ...more: string[]) =>
  run(cwd, ["register", ref, "--harness", "claude", "--session-id", "abc-123", ...more]);

Deno.test("register writes the record, prints the link and logs session.registered", async () => {
  const cwd = project();
  const r = ok(await register(cwd, REF, "--cwd", "work"));
  assert.equal(r.stdout, `registered ${REF} -> claude:abc-123\n`);
  const text = await Deno.readTextFile(sessionFile(cwd));
  assert.ok(text.endsWith("}\n") && text.startsWith('{\n  "workItem"'), "indented, newline-ended");
  const record = JSON.parse(text);
  assert.match(record.rev, /^[0-9a-f]{8}$/);
  // a new session's counters: its launch, nothing delivered yet (`state/usage.ts`)
  assert.deepEqual(record.usage, {
    since: record.createdAt,
    grants: 0,
    delivered: 0,
    deliveries: [],
    authors: {},
    launches: [record.createdAt],
    runs: 0,
  });
  delete record.usage;
  assert.deepEqual({ ...record, createdAt: "…", rev: "…" }, {
    workItem: { ref: REF, provider: "github", owner: "octo", repo: "repo", number: 1 },
    harness: "claude",
    harnessSessionId: "abc-123",
    cwd: join(cwd, "work"),
    status: "active",
    createdAt: "…",
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "https://github.com/octo/repo/issues/1",
    rev: "…",
  });
  assert.ok(!Number.isNaN(Date.parse(record.createdAt)));
  const [e] = (await events(cwd)).filter((e) => e.event === "session.registered");
  assert.deepEqual([e.source, e.work_item, e.replaced], ["sessions", REF, false]);
});

Deno.test("a second register exits 2 unless --force; after close it is fine", async () => {
  const cwd = project();
  ok(await register(cwd));
  const again = await register(cwd);
  assert.equal(again.code, 2);
  assert.match(
    again.stderr,
    /an active session already exists for github:octo\/repo#1 \(harness=claude, id=abc-123\); use --force to replace it/,
  );
  ok(await run(cwd, ["register", REF, "--harness", "cursor", "--session-id", "chat-9", "--force"]));
  assert.equal((await readJson(sessionFile(cwd))).harness, "cursor");
  ok(await run(cwd, ["close", REF]));
  ok(await register(cwd));
  const replaced = (await events(cwd)).filter((e) => e.event === "session.registered")
    .map((e) => e.replaced);
  assert.deepEqual(replaced, [false, true, false]);
});

Deno.test("list: the table, the control column, and (no registered sessions) on stderr", async () => {
  const cwd = project();
  const empty = ok(await run(cwd, ["list"]));
  assert.equal(empty.stdout, "");
  assert.equal(empty.stderr, "(no registered sessions)\n");
  ok(await register(cwd));
  ok(await register(cwd, "github:octo/repo#10", "--tmux", "loop-github-octo-repo-10"));
  ok(await run(cwd, ["pause", REF, "--no-comment"]));
  const r = ok(await run(cwd, ["list"]));
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(
    lines[0],
    /^Work item\s+Harness\s+Session id\s+Tmux\s+Status\s+Control\s+Last event\s+Usage$/,
  );
  assert.match(
    lines[1],
    /^github:octo\/repo#1\s+claude\s+abc-123\s+-\s+paused\s+pause \(cli\)\s+-\s+deliveries\/h 0\/60, launches\/day 1\/10$/,
  );
  assert.match(
    lines[2],
    /^github:octo\/repo#10\s+claude\s+abc-123\s+loop-github-octo-repo-10\s+active\s+-\s+-\s+deliveries\/h 0\/60, launches\/day 1\/10$/,
  );
  assert.equal(lines.length, 3);
});

Deno.test("list --format json: each record's fields plus ref and control", async () => {
  const cwd = project();
  ok(await register(cwd));
  ok(await run(cwd, ["pause", REF, "--no-comment"]));
  const doc = JSON.parse(ok(await run(cwd, ["list", "--format", "json"])).stdout);
  assert.equal(doc.command, "sessions list");
  assert.equal(doc.ok, true);
  const [s] = doc.sessions;
  assert.equal(s.ref, REF);
  assert.equal(s.status, "paused");
  assert.equal(s.harnessSessionId, "abc-123");
  // what it used against its budgets: a cost with no harness report is "not measured" (null)
  assert.deepEqual(s.usage.budgets.deliveriesPerHour, { used: 0, limit: 60 });
  assert.deepEqual(s.usage.budgets.spawnsPerDay, { used: 1, limit: 10 });
  assert.deepEqual(s.usage.budgets.costUsd, { used: null, limit: null });
  assert.deepEqual(s.usage.loopGuard, { maxPerWindow: 15, windowMinutes: 10 });
  assert.deepEqual(
    [s.control.command, s.control.source, s.control.actor, s.control.ref],
    ["pause", "cli", "alice", REF],
  );
});

Deno.test("list skips a corrupt file and a file it did not write, with a warning each", async () => {
  const cwd = project();
  ok(await register(cwd));
  await Deno.writeTextFile(join(registry(cwd), "github-octo-repo-2.json"), "{oops");
  await Deno.writeTextFile(join(registry(cwd), "github-octo-repo-3.json"), '{"mine": true}');
  const r = ok(await run(cwd, ["list", "--format", "json"]));
  assert.deepEqual(JSON.parse(r.stdout).sessions.map((s: { ref: string }) => s.ref), [REF]);
  assert.match(r.stderr, /github-octo-repo-2\.json: not valid JSON/);
  assert.match(r.stderr, /github-octo-repo-3\.json: not a session record the-loop wrote/);
});

Deno.test("close: a missing session exits 1; an existing one is kept as closed", async () => {
  const cwd = project();
  const missing = await run(cwd, ["close", REF]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no active session for github:octo\/repo#1/);
  ok(await register(cwd));
  ok(await run(cwd, ["close", REF]));
  assert.equal((await readJson(sessionFile(cwd))).status, "closed");
  const closed = (await events(cwd)).filter((e) => e.event === "session.closed");
  assert.deepEqual(closed.map((e) => [e.source, e.work_item]), [["sessions", REF]]);
});

Deno.test("a garbage ref is a usage error naming the expected forms (exit 2)", async () => {
  const cwd = project();
  for (
    const args of [
      ["register", "octo/repo#1", "--harness", "claude", "--session-id", "x"],
      ["close", "github:octo/repo"],
      ["attach", "#1"],
      ["pause", "github:octo/repo#x", "--no-comment"],
    ]
  ) {
    const r = await run(cwd, args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(
      r.stderr,
      /is not a work item ref: expected github:OWNER\/REPO#N or github:HOST\/OWNER\/REPO#N/,
    );
  }
  assert.equal(await exists(registry(cwd)), false, "nothing written");
});

Deno.test("verbs --no-comment: pause/resume/start/stop and their exit codes", async () => {
  const cwd = project();
  // pause with no session: exit 1, but the pause is recorded
  const pause = await run(cwd, ["pause", REF, "--no-comment"]);
  assert.equal(pause.code, 1);
  assert.match(pause.stderr, /no active session for github:octo\/repo#1/);
  assert.equal((await readJson(controlFile(cwd))).command, "pause");
  // resume with nothing paused: exit 1, nothing recorded
  const resume = await run(cwd, ["resume", REF, "--no-comment"]);
  assert.equal(resume.code, 1);
  assert.match(resume.stderr, /nothing to resume for github:octo\/repo#1/);
  assert.equal((await readJson(controlFile(cwd))).command, "pause");
  // start on a running session: a no-op, nothing recorded
  ok(await register(cwd));
  const start = ok(await run(cwd, ["start", REF, "--no-comment"]));
  assert.match(start.stdout, /already runs .*nothing to do/);
  assert.equal((await readJson(controlFile(cwd))).command, "pause");
  // pause, resume, stop on a live session
  ok(await run(cwd, ["pause", REF, "--no-comment", "--as", "bob"]));
  assert.equal((await readJson(sessionFile(cwd))).status, "paused");
  assert.deepEqual(
    [(await readJson(controlFile(cwd))).actor, (await readJson(controlFile(cwd))).source],
    ["bob", "cli"],
  );
  ok(await run(cwd, ["resume", REF, "--no-comment"]));
  assert.equal((await readJson(sessionFile(cwd))).status, "active");
  const stop = ok(await run(cwd, ["stop", REF, "--no-comment"]));
  assert.match(stop.stdout, /stopped github:octo\/repo#1: session claude:abc-123 closed/);
  assert.equal((await readJson(sessionFile(cwd))).status, "closed");
  assert.equal((await readJson(controlFile(cwd))).command, "stop");
  const log = await events(cwd);
  assert.ok(
    log.filter((e) => String(e.event).startsWith("control.")).every((e) => e.source === "cli"),
  );
  assert.equal(
    log.filter((e) => e.event === "control.announced").length,
    0,
    "--no-comment posts nothing",
  );
});

Deno.test("a verb with no actor anywhere is a usage error", async () => {
  const cwd = project();
  const r = await cli(["-c", "c.yaml", "sessions", "start", REF, "--no-comment"], { cwd });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--as LOGIN/);
});

Deno.test("a verb posts the same keyword as a marked comment, issued by the actor", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addIssue("octo/repo", {});
  const cwd = project("", gh.url);
  ok(await register(cwd));
  const r = ok(await run(cwd, ["pause", REF], { SESSIONS_TOKEN: TOKEN }));
  assert.match(r.stdout, /^paused github:octo\/repo#1/);
  const posts = gh.requests.filter((q) => q.method === "POST");
  assert.equal(posts.length, 1);
  assert.equal(posts[0].path, "/repos/octo/repo/issues/1/comments");
  const body = (posts[0].body as { body: string }).body;
  assert.match(body, /^`the-loop:pause-execution`\n\nIssued from the-loop CLI by `alice`\./);
  assert.ok(body.includes("<!-- the-loop:agent-comment -->"), "marked as the-loop's own");
  assert.equal(JSON.stringify(posts[0].headers).includes(TOKEN), false);
  const announced = (await events(cwd)).filter((e) => e.event === "control.announced");
  assert.equal(announced.length, 1);
  // a refused resume records nothing, so it posts nothing
  ok(await run(cwd, ["resume", REF], { SESSIONS_TOKEN: TOKEN }));
  const again = await run(cwd, ["resume", REF], { SESSIONS_TOKEN: TOKEN });
  assert.equal(again.code, 1);
  assert.equal(gh.requests.filter((q) => q.method === "POST").length, 2, "pause and resume only");
});

Deno.test("a failing post warns and keeps the local action; the exit code follows the local result", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addIssue("octo/repo", {});
  const cwd = project("", gh.url);
  ok(await register(cwd));
  gh.fault({ path: "/repos/octo/repo/issues/1/comments", kind: "status", status: 500, times: 5 });
  const r = ok(await run(cwd, ["pause", REF], { SESSIONS_TOKEN: TOKEN }));
  assert.match(r.stderr, /warning: could not post the-loop:pause-execution on github:octo\/repo#1/);
  assert.equal((await readJson(sessionFile(cwd))).status, "paused");
  // no token at all: the same, and a pause with no session still exits 1
  const none = await run(cwd, ["pause", "github:octo/repo#2"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /could not post .*no GitHub token found/);
  assert.match(none.stderr, /no active session for github:octo\/repo#2/);
  assert.equal((await readJson(controlFile(cwd, "github-octo-repo-2"))).command, "pause");
  const failed = (await events(cwd)).filter((e) => e.event === "control.announce_failed");
  assert.deepEqual(failed.map((e) => e.work_item), [REF, "github:octo/repo#2"]);
  assert.ok(failed.every((e) => !JSON.stringify(e).includes(TOKEN)));
});

const GATE = `import { type InputReceived, LifecycleHooks } from "@the-loop/hooks";
export default class Gate extends LifecycleHooks {
  override input_received(ctx: InputReceived) {
    if (ctx.kind === "command" && ctx.source === "verb" && ctx.actor === "mallory") {
      return { proceed: false, reason: "mallory may not " + ctx.command + " " + ctx.work_item.ref };
    }
  }
}
`;

Deno.test("an input_received hook refusing a verb exits 1 with its reason; nothing applied", async () => {
  const cwd = tree({
    "c.yaml": [
      'github: { apiUrl: "http://127.0.0.1:9", tokenEnv: SESSIONS_TOKEN }',
      "hooks:",
      "  - name: gate",
      "    path: hooks/gate.ts",
      "    on: [input_received]",
      "",
    ].join("\n"),
    "hooks/gate.ts": GATE,
  });
  ok(await register(cwd));
  const r = await run(cwd, ["stop", REF, "--as", "mallory"]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /refused by an input_received hook: mallory may not stop github:octo\/repo#1/,
  );
  assert.equal((await readJson(sessionFile(cwd))).status, "active");
  assert.equal(await exists(controlFile(cwd)), false);
  const [rejected] = (await events(cwd)).filter((e) => e.event === "control.rejected");
  assert.deepEqual([rejected.reason, rejected.command, rejected.actor], [
    "input-refused",
    "stop",
    "mallory",
  ]);
  // anyone else passes the same gate
  ok(await run(cwd, ["pause", REF, "--no-comment"]));
  assert.equal((await readJson(sessionFile(cwd))).status, "paused");
});

Deno.test("attach: prints the tmux command off a terminal; read-only once closed; headless exits 1", async () => {
  const cwd = project();
  const missing = await run(cwd, ["attach", REF]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no session for github:octo\/repo#1/);
  ok(await register(cwd, REF, "--tmux", `loop-${SLUG}`));
  assert.equal(ok(await run(cwd, ["attach", REF])).stdout, `tmux attach -t loop-${SLUG}\n`);
  ok(await run(cwd, ["close", REF]));
  assert.equal(ok(await run(cwd, ["attach", REF])).stdout, `tmux attach -r -t loop-${SLUG}\n`);
  ok(await register(cwd, "github:octo/repo#2"));
  const headless = await run(cwd, ["attach", "github:octo/repo#2"]);
  assert.equal(headless.code, 1);
  assert.match(headless.stderr, /runs headless/);
});

/** Runs tmux against a private server (its socket under `tmpdir`). */
async function tmux(tmpdir: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command("tmux", {
    args,
    env: { TMUX_TMPDIR: tmpdir },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, out: new TextDecoder().decode(out.stdout).trim() };
}

Deno.test("stop ends a tmux-hosted harness and keeps its pane to read back (keepSessionOnClose)", async () => {
  const tmpdir = await Deno.makeTempDir({ prefix: "sessions-tmux-" });
  const name = `loop-${SLUG}`;
  try {
    assert.equal((await tmux(tmpdir, "new-session", "-d", "-s", name, "sleep 1000")).code, 0);
    const cwd = project();
    ok(await register(cwd, REF, "--tmux", name));
    const r = ok(await run(cwd, ["stop", REF, "--no-comment"], { TMUX_TMPDIR: tmpdir }));
    assert.doesNotMatch(r.stderr, /warning/);
    assert.equal((await readJson(sessionFile(cwd))).status, "closed");
    const panes = await tmux(tmpdir, "list-panes", "-t", `=${name}`, "-F", "#{pane_dead}");
    assert.deepEqual([panes.code, panes.out], [0, "1"], "the session is kept, its harness ended");
  } finally {
    await tmux(tmpdir, "kill-server");
    await Deno.remove(tmpdir, { recursive: true });
  }
});
