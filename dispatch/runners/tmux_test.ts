import assert from "node:assert/strict";
import type { HostedSession } from "../seams.ts";
import { tmuxSessionName } from "./mod.ts";
import { EXTRA, tmuxSetup, waitAlive } from "./_test_utils.ts";
import {
  processExists,
  readHarnessLog,
  waitForExit as waitExit,
  waitForHarnessLog,
} from "../../tests/fake_harness/mod.ts";

const PROMPT = 'Work on #1: "fix it"; $HOME `id` \\ end;';

/** Spawns `s` and kills its harness with SIGKILL; resolves once the runner sees it gone. */
async function spawnThenCrash(t: Awaited<ReturnType<typeof tmuxSetup>>, s: HostedSession) {
  await t.runner.spawn(s, "start", { resume: false });
  const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length > 0);
  Deno.kill(boot.pid, "SIGKILL");
  await waitAlive(() => t.alive(s), false);
}

// every test runs twice: a runner whose every command is a `tmux` process (a CLI verb's), and
// one that keeps a control-mode client (a daemon's)
for (const control of [false, true]) {
  const mode = control ? " (control mode)" : "";

  Deno.test(`tmux runner: spawn boots claude in loop-<slug> with its id and the prompt${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      const s = t.session(1);
      const spawned = await t.runner.spawn(s, PROMPT, { resume: false });
      assert.deepEqual(spawned, {
        harnessSessionId: s.harnessSessionId,
        tmuxTarget: "loop-github-octo-repo-1",
      });
      const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length > 0);
      assert.equal(boot.program, "claude");
      assert.equal(boot.mode, "interactive");
      assert.equal(boot.cwd, t.dir);
      assert.deepEqual(boot.argv, [...EXTRA.claude, "--session-id", s.harnessSessionId, PROMPT]);
      assert.deepEqual(await t.sessions(), ["loop-github-octo-repo-1"]);
      assert.equal(await t.alive(s), true);
      assert.equal(await t.alive(t.session(2)), false);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: deliver pastes the prompt into the session's pane and presses Enter${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      const s = t.session(1);
      await t.runner.spawn(s, "start", { resume: false });
      assert.equal(await t.runner.deliver(s, "first; $HOME", {}), true);
      assert.equal(await t.runner.deliver(s, "second ends with a semicolon;", {}), true);
      const entries = await waitForHarnessLog(
        t.harnessLog,
        (e) => e.filter((x) => x.event === "input").length === 2,
      );
      assert.deepEqual(
        entries.filter((e) => e.event === "input").map((e) => [e.session, e.line]),
        [[s.harnessSessionId, "first; $HOME"], [
          s.harnessSessionId,
          "second ends with a semicolon;",
        ]],
      );
      // every delivery buffer was deleted by its paste
      assert.equal((await t.tmux("list-buffers")).trim(), "");
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: deliver answers false for a dead or missing harness and starts nothing${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      const s = t.session(1);
      await t.runner.spawn(s, "start", { resume: false });
      assert.equal(await t.runner.deliver(s, "one; $HOME", {}), true);
      assert.equal(await t.runner.deliver(s, "two\nlines", {}), true);
      const entries = await waitForHarnessLog(
        t.harnessLog,
        (e) => e.filter((x) => x.event === "input").length === 3,
      );
      assert.deepEqual(
        entries.filter((e) => e.event === "input").map((e) => e.line),
        ["one; $HOME", "two", "lines"],
      );
      // a missing session, then a dead pane: nothing pasted, nothing booted, no buffer left
      assert.equal(await t.runner.deliver(t.session(2), "nobody", {}), false);
      const [boot] = entries.filter((e) => e.event === "boot");
      Deno.kill(boot.pid, "SIGKILL");
      await waitAlive(() => t.alive(s), false);
      assert.equal(await t.runner.deliver(s, "into the dead pane", {}), false);
      assert.equal((await t.tmux("list-buffers")).trim(), "");
      const after = await waitForHarnessLog(t.harnessLog, (e) => e.length >= 4);
      // the runner never relaunches: that is the dispatcher's, after `session_spawn`
      assert.equal(after.filter((e) => e.event === "boot").length, 1);
      assert.ok(!after.some((e) => e.line === "nobody" || e.line === "into the dead pane"));
      assert.deepEqual(await t.sessions(), ["loop-github-octo-repo-1"], "no session made");
      assert.equal(await t.alive(s), false);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: after a crash a spawn with resume continues the same conversation${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      const s = t.session(1);
      await spawnThenCrash(t, s);
      assert.deepEqual(await t.sessions(), ["loop-github-octo-repo-1"], "remain-on-exit");
      assert.equal(await t.runner.deliver(s, "after the crash", {}), false);
      const spawned = await t.runner.spawn(s, "after the crash", { resume: true });
      assert.deepEqual(spawned, { harnessSessionId: s.harnessSessionId, tmuxTarget: s.tmuxTarget });
      const boots = await waitForHarnessLog(t.harnessLog, (e) => e.length === 2);
      assert.deepEqual(boots[1].argv, [
        ...EXTRA.claude,
        "--resume",
        s.harnessSessionId,
        "after the crash",
      ]);
      assert.deepEqual(t.resumeFailures, []);
      assert.equal(await t.alive(s), true);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: a resume that dies at once falls back to a fresh boot and reports it${mode}`, async () => {
    const t = await tmuxSetup({ control, env: { FAKE_HARNESS_RESUME_FAIL: "1" } });
    try {
      const s = t.session(1);
      await spawnThenCrash(t, s);
      const spawned = await t.runner.spawn(s, "after the crash", { resume: true });
      assert.equal(t.resumeFailures.length, 1);
      const { failure } = t.resumeFailures[0];
      assert.match(failure.reason, /claude --resume .* exited at once/);
      assert.notEqual(failure.harnessSessionId, s.harnessSessionId);
      const entries = await waitForHarnessLog(
        t.harnessLog,
        (e) => e.filter((x) => x.event === "boot").length === 3,
      );
      assert.deepEqual(entries.filter((e) => e.event !== "input").map((e) => [e.event, e.argv]), [
        ["boot", [...EXTRA.claude, "--session-id", s.harnessSessionId, "start"]],
        ["boot", [...EXTRA.claude, "--resume", s.harnessSessionId, "after the crash"]],
        ["resume_failed", undefined],
        ["boot", [...EXTRA.claude, "--session-id", failure.harnessSessionId, "after the crash"]],
      ]);
      assert.equal(spawned.harnessSessionId, failure.harnessSessionId);
      assert.equal(await t.alive(s), true);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: a cursor record without an id relaunches on a newly issued chat and says why${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      // a record from before chats were issued up front: nothing to resume
      const s = t.session(1, "cursor", "");
      const spawned = await t.runner.spawn(s, "again", { resume: true });
      assert.match(
        t.resumeFailures[0].failure.reason,
        /no cursor-agent conversation id was recorded/,
      );
      const entries = await waitForHarnessLog(t.harnessLog, (e) => e.length === 2);
      const [issued, boot] = entries;
      assert.deepEqual(issued.argv, ["create-chat"]);
      assert.match(spawned.harnessSessionId, /^[0-9a-f-]{36}$/);
      assert.equal(issued.session, spawned.harnessSessionId);
      assert.equal(t.resumeFailures[0].failure.harnessSessionId, spawned.harnessSessionId);
      assert.deepEqual([boot.program, boot.argv], [
        "cursor-agent",
        ["--force", "--resume", spawned.harnessSessionId, "again"],
      ]);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: a spawn with resume boots the recorded conversation${mode}`, async () => {
    const t = await tmuxSetup({ control, tmux: { resumeProbeSeconds: 0 } });
    try {
      const s = t.session(1);
      const spawned = await t.runner.spawn(s, "carry on", { resume: true });
      assert.equal(spawned.harnessSessionId, s.harnessSessionId);
      const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length > 0);
      assert.deepEqual(boot.argv, [...EXTRA.claude, "--resume", s.harnessSessionId, "carry on"]);
      assert.deepEqual(t.resumeFailures, []);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: a prompt too long for a tmux command boots without it and is pasted${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      const s = t.session(1);
      // four lines of 3,500 characters: over tmux's 16 KiB command limit with the argv, while each
      // line fits the terminal's line buffer (a paste turns newlines into Enter presses)
      const lines = ["a", "b", "c", "d"].map((c) => c.repeat(3500));
      await t.runner.spawn(s, lines.join("\n"), { resume: false });
      const entries = await waitForHarnessLog(t.harnessLog, (e) => e.length === 5);
      assert.deepEqual(entries[0].argv, [...EXTRA.claude, "--session-id", s.harnessSessionId]);
      assert.deepEqual(entries.slice(1).map((e) => e.line), lines);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: close ends the harness and keeps the session readable${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      const s = t.session(1);
      await t.runner.spawn(s, "start", { resume: false });
      const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length > 0);
      await waitForPane(t.tmux, "fake claude ready");
      await t.runner.close(s);
      await waitExit(boot.pid);
      assert.equal(await t.alive(s), false);
      assert.deepEqual(await t.sessions(), ["loop-github-octo-repo-1"]);
      const screen = await t.tmux(
        "capture-pane",
        "-p",
        "-S",
        "-",
        "-t",
        "=loop-github-octo-repo-1:",
      );
      assert.match(screen, /fake claude ready/);
      // a new spawn reclaims the name
      await t.runner.spawn(s, "once more", { resume: false });
      assert.equal(await t.alive(s), true);
      assert.deepEqual(await t.sessions(), ["loop-github-octo-repo-1"]);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: close SIGKILLs a harness that ignores SIGTERM after the grace${mode}`, async () => {
    const t = await tmuxSetup({
      control,
      env: { FAKE_HARNESS_IGNORE_TERM: "1" },
      tmux: { harnessKillGraceSeconds: 0.3 },
    });
    try {
      const s = t.session(1);
      await t.runner.spawn(s, "start", { resume: false });
      const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length > 0);
      await t.runner.close(s);
      await waitExit(boot.pid);
      assert.equal(await processExists(boot.pid), false);
      assert.equal(await t.alive(s), false);
      // it did not end by itself (stdin closing): only the SIGKILL could end it
      const entries = await readHarnessLog(t.harnessLog);
      assert.deepEqual(entries.map((e) => e.event), ["boot"]);
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: keepSessionOnClose false kills the session${mode}`, async () => {
    const t = await tmuxSetup({ control, tmux: { keepSessionOnClose: false } });
    try {
      const s = t.session(1);
      await t.runner.spawn(s, "start", { resume: false });
      await t.runner.spawn(t.session(2), "start", { resume: false });
      const entries = await waitForHarnessLog(t.harnessLog, (e) => e.length === 2);
      await t.runner.close(s);
      await waitExit(entries.find((e) => e.session === s.harnessSessionId)!.pid);
      assert.deepEqual(await t.sessions(), ["loop-github-octo-repo-2"]);
      await t.runner.close(s); // closing a gone session is a no-op
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: session names turn . and : into _, as tmux itself does${mode}`, () => {
    assert.equal(tmuxSessionName("github-octo-my.repo-3"), "loop-github-octo-my_repo-3");
  });

  Deno.test(`tmux runner: attachCommand names the socket when there is one${mode}`, async () => {
    const t = await tmuxSetup({ control });
    try {
      assert.equal(
        t.runner.attachCommand("github-octo-repo-1"),
        `tmux -L ${t.socket} attach -t loop-github-octo-repo-1`,
      );
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`tmux runner: a missing tmux binary is a clear error${mode}`, async () => {
    const t = await tmuxSetup({ control, env: { PATH: "/nonexistent" } });
    try {
      await assert.rejects(
        t.runner.spawn(t.session(1), "x", { resume: false }),
        /tmux is not installed: install it, or set routing.runner: process/,
      );
    } finally {
      await t.cleanup();
    }
  });
}

async function waitForPane(
  tmux: (...args: string[]) => Promise<string>,
  text: string,
): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    const screen = await tmux("capture-pane", "-p", "-t", "=loop-github-octo-repo-1:");
    if (screen.includes(text)) return;
    if (Date.now() > until) throw new Error(`the pane never showed "${text}":\n${screen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("tmux runner: an interactive harness is neither capped nor measured", async () => {
  const t = await tmuxSetup({ env: { FAKE_HARNESS_COST: "1", FAKE_HARNESS_TURNS: "2" } });
  try {
    const s = t.session(1);
    const used: unknown[] = [];
    const opts = {
      limits: { maxTurns: 3, maxBudgetUsd: 0.5 },
      onUsage: (u: unknown) => used.push(u),
    };
    await t.runner.spawn(s, "start", { resume: false, ...opts });
    assert.equal(await t.runner.deliver(s, "next", opts), true);
    const entries = await waitForHarnessLog(
      t.harnessLog,
      (e) => e.some((x) => x.event === "input"),
    );
    const [boot] = entries.filter((e) => e.event === "boot");
    assert.deepEqual(boot.argv, [...EXTRA.claude, "--session-id", s.harnessSessionId, "start"]);
    assert.deepEqual(used, [], "a TUI prints no result: nothing is reported");
  } finally {
    await t.cleanup();
  }
});
