/**
 * A tmux session's conversation id, for the harnesses that cannot be handed a new one:
 * `cursor-agent create-chat` and opencode's session made first (issued before the boot, which
 * then resumes it), codex's found in the rollout file its TUI writes — and a clear spawn
 * failure, with nothing left running, when none is had.
 */
import assert from "node:assert/strict";
import { readHarnessLog, waitForHarnessLog } from "../../tests/fake_harness/mod.ts";
import { tmuxSetup } from "./_test_utils.ts";

Deno.test("tmux: codex names its conversation on disk; the runner finds and returns it", async () => {
  const codexHome = await Deno.makeTempDir();
  const t = await tmuxSetup({ env: { CODEX_HOME: codexHome } });
  try {
    const s = t.session(1, "codex", "");
    const spawned = await t.runner.spawn(s, "start", { resume: false });
    // spawn returned once the rollout named the id: the boot is logged before it
    const boot = (await readHarnessLog(t.harnessLog)).find((e) => e.event === "boot")!;
    assert.equal(boot.program, "codex");
    assert.deepEqual(boot.argv, ["start"]);
    assert.equal(spawned.harnessSessionId, boot.session);
    // a respawn resumes it: `codex resume -- <id> <prompt>`
    await t.tmux("kill-session", "-t", "=" + spawned.tmuxTarget);
    await t.runner.spawn({ ...s, harnessSessionId: spawned.harnessSessionId }, "again", {
      resume: true,
    });
    const boots = (await waitForHarnessLog(
      t.harnessLog,
      (es) => es.filter((e) => e.event === "boot").length === 2,
    )).filter((e) => e.event === "boot");
    assert.deepEqual(boots[1].argv, ["resume", "--", spawned.harnessSessionId, "again"]);
  } finally {
    await t.cleanup();
    await Deno.remove(codexHome, { recursive: true });
  }
});

Deno.test("tmux: a codex that names no conversation is a spawn failure; its session is ended", async () => {
  const codexHome = await Deno.makeTempDir();
  const t = await tmuxSetup({
    env: { CODEX_HOME: codexHome, FAKE_HARNESS_NO_ID: "1" },
    idTimeoutMs: 500,
  });
  try {
    await assert.rejects(
      () => t.runner.spawn(t.session(2, "codex", ""), "start", { resume: false }),
      /codex for github:octo\/repo#2 named no conversation within 0\.5 s .*session was ended/,
    );
    assert.deepEqual(await t.sessions(), []);
  } finally {
    await t.cleanup();
    await Deno.remove(codexHome, { recursive: true });
  }
});

Deno.test("tmux: cursor's chat and opencode's session are issued first, then resumed by the boot", async () => {
  const t = await tmuxSetup();
  try {
    const c = await t.runner.spawn(t.session(3, "cursor", ""), "start", { resume: false });
    const o = await t.runner.spawn(t.session(4, "opencode", ""), "go", { resume: false });
    // the panes boot on their own time: both boots logged
    const log = await waitForHarnessLog(
      t.harnessLog,
      (es) => es.filter((e) => e.event === "boot" && e.mode === "interactive").length === 2,
    );
    const issued = log.filter((e) => e.event === "boot" && e.mode === "issue");
    assert.deepEqual(issued.map((e) => [e.program, e.argv]), [
      ["cursor-agent", ["create-chat"]],
      ["opencode", ["run", "--format", "json", "--title", "the-loop", "--command", "true"]],
    ]);
    const booted = log.filter((e) => e.event === "boot" && e.mode === "interactive");
    assert.deepEqual(booted.map((e) => e.argv), [
      ["--force", "--resume", c.harnessSessionId, "start"],
      ["--session", o.harnessSessionId, "--prompt=go"],
    ]);
    assert.equal(c.harnessSessionId, issued[0].session);
    assert.equal(o.harnessSessionId, issued[1].session);
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux: a chat that cannot be issued is a spawn failure that says why; nothing boots", async () => {
  // no cursor-agent on PATH (tmux is)
  const t = await tmuxSetup({ env: { PATH: "/usr/bin:/bin" } });
  try {
    await assert.rejects(
      () => t.runner.spawn(t.session(5, "cursor", ""), "start", { resume: false }),
      /cursor-agent create-chat for github:octo\/repo#5 could not run/,
    );
    assert.deepEqual(await t.sessions(), []);
  } finally {
    await t.cleanup();
  }
});
