/**
 * `the-loop demo`, headless, end to end, as the real CLI: it starts; the session of
 * `octo/demo#1` starts in a worktree cloned over HTTP from the fake GitHub's git server; the demo
 * agent asks its question; `the-loop reply` answers it; the agent commits and claims its node; at
 * the gate `the-loop demo comment 1 the-loop:approve` approves; `the-loop demo close 1` closes the
 * issue and the session ends; SIGINT stops the demo, and nothing of it is left: no daemon, no
 * agent, no tmux server on its socket, no run file, no folder.
 *
 * Two ways through: the poller with the agent in tmux, and the webhook receiver (the fake
 * delivering signed webhooks) with the process runner (the agent run headless per prompt).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { DemoRun } from "../demo/mod.ts";
import { processExists } from "./fake_harness/mod.ts";
import { cli, type CliResult, hasTmux, readOutput, spawnCli, until } from "./_test_utils.ts";

const REF = "github:octo/demo#1";

async function jsonl(path: string): Promise<Record<string, unknown>[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const lines = text.split("\n");
  lines.pop(); // a line being written may be cut short
  return lines.filter((l) => l.trim()).map((l) => JSON.parse(l));
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

async function walk(o: { runner: "tmux" | "process"; webhook: boolean }): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "demo-e2e-" }));
  const runFile = join(home, "demo.json");
  const env = { THE_LOOP_DEMO_FILE: runFile, TMUX_TMPDIR: home };
  const child = spawnCli(
    ["demo", "--runner", o.runner, ...(o.webhook ? ["--webhook"] : [])],
    { cwd: home, env },
  );
  const out = readOutput(child);
  let exited: number | undefined;
  const status = child.status.then((s) => (exited = s.code));
  const detail = () => `demo stdout:\n${out.out.stdout}\nstderr:\n${out.out.stderr}`;
  let stopped = false;
  try {
    await until("the demo's guide", () => {
      if (exited !== undefined) throw new Error(`the demo exited ${exited}\n${detail()}`);
      return out.out.stdout.includes("Ctrl+C stops everything.");
    }, { ms: 60_000, detail });
    const run = JSON.parse(await Deno.readTextFile(runFile)) as DemoRun;
    assert.equal(run.runner, o.runner);
    assert.equal(run.daemon, o.webhook ? "gh-webhook" : "poll");
    assert.equal((await Deno.stat(runFile)).mode! & 0o777, 0o600);
    // the daemon serves the status page; the guide names it
    assert.ok(run.pageUrl && out.out.stdout.includes(run.pageUrl), "the page's URL is printed");
    await until("the page lists the demo item", async () => {
      const r = await fetch(`${run.pageUrl}api/v1/state`).catch(() => undefined);
      if (!r) return false;
      const body = await r.json().catch(() => ({})) as { items?: { ref?: string }[] };
      return (body.items ?? []).some((i) => i.ref === REF);
    }, { ms: 60_000, detail });
    const events = () => jsonl(join(run.dir, ".the-loop", "logs", "events.jsonl"));
    const seen = async (event: string) =>
      (await events()).some((e) => e.event === event && e.work_item === REF);
    const waitEvent = (event: string) =>
      until(`${event} on ${REF}`, () => seen(event), {
        ms: 60_000,
        detail: () => `${detail()}\n${Deno.readTextFileSync(join(run.dir, "daemon.log"))}`,
      });
    // the session starts in a worktree cloned from the fake's git server, the agent asks
    await waitEvent("session.spawned");
    assert.ok((await events()).some((e) => e.event === "workspace.cloned"), "cloned over HTTP");
    await waitEvent("session.awaiting_input");
    const asked = (await events()).find((e) => e.event === "session.awaiting_input")!;
    assert.match(String(asked.question), /flaky step/);
    // the answer, from the terminal
    const c = ["-c", run.config];
    ok(
      await cli([...c, "reply", REF, "--actor", "you", "--text", "fix its timing"], {
        cwd: home,
        env,
      }),
    );
    // the agent commits in its worktree and claims its node: the item waits at the gate
    await waitEvent("loop.gate_waiting");
    const worktree = join(run.dir, ".the-loop", "workspaces", "github.com", "octo", "demo", "1");
    const log = await new Deno.Command("git", {
      args: ["-C", worktree, "log", "--format=%an|%s"],
      stdout: "piped",
    }).output();
    const commits = new TextDecoder().decode(log.stdout).trim().split("\n");
    assert.equal(commits[0], "the-loop demo agent|Fix the flaky login test (round 1)");
    assert.match(await Deno.readTextFile(join(worktree, "NOTES.md")), /fix its timing/);
    let agentPids: number[] = [];
    if (run.tmuxSocket) {
      const panes = await new Deno.Command("tmux", {
        args: ["-L", run.tmuxSocket, "list-panes", "-a", "-F", "#{pane_pid}"],
        env: { TMUX_TMPDIR: home },
        stdout: "piped",
      }).output();
      agentPids = new TextDecoder().decode(panes.stdout).trim().split("\n").map(Number);
      assert.ok(agentPids.length > 0 && agentPids.every((p) => p > 0), "the agent's pane");
    }
    // the gate, approved by the demo's person
    ok(await cli(["demo", "comment", "1", "the-loop:approve"], { cwd: home, env }));
    await waitEvent("loop.completed");
    // closing the issue ends the session
    ok(await cli(["demo", "close", "1"], { cwd: home, env }));
    await waitEvent("session.closed");
    // Ctrl+C: everything stops
    child.kill("SIGINT");
    await status;
    stopped = true;
    await out.done;
    assert.equal(exited, 0, detail());
    assert.match(out.out.stdout, /the-loop demo: stopped/);
    assert.equal(await exists(runFile), false, "the run file is removed");
    assert.equal(await exists(run.dir), false, "the demo's folder is removed");
    assert.equal(await processExists(run.daemonPid), false, "the daemon has stopped");
    for (const pid of agentPids) assert.equal(await processExists(pid), false, `agent ${pid}`);
    if (run.tmuxSocket) {
      const ls = await new Deno.Command("tmux", {
        args: ["-L", run.tmuxSocket, "ls"],
        env: { TMUX_TMPDIR: home },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(ls.success, false, "no tmux server on the demo's socket");
    }
    // no process of the demo's is left (the agent's deferred verbs included)
    const ps = await new Deno.Command("ps", { args: ["-eo", "args"], stdout: "piped" }).output();
    const left = new TextDecoder().decode(ps.stdout).split("\n")
      .filter((l) => l.includes(run.dir));
    assert.deepEqual(left, []);
  } finally {
    if (!stopped) {
      child.kill("SIGINT");
      await status;
      await out.done;
    }
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "the demo, polling, the agent in tmux: ask, reply, commit, approve, close, Ctrl+C",
  ignore: !hasTmux,
  fn: () => walk({ runner: "tmux", webhook: false }),
});

Deno.test(
  "the demo, webhooks, the agent headless: ask, reply, commit, approve, close, Ctrl+C",
  () => walk({ runner: "process", webhook: true }),
);
