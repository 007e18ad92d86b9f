import assert from "node:assert/strict";
import type { DispatchRunner } from "../seams.ts";
import { join } from "node:path";
import { adapterFor } from "../harness/mod.ts";
import type { HarnessName, HostedSession } from "../seams.ts";
import { ProcessRunner } from "./mod.ts";
import {
  pathWithFakes,
  processExists,
  readHarnessLog,
  waitForHarnessLog,
} from "../../tests/fake_harness/mod.ts";

const EXTRA: Record<HarnessName, string[]> = { claude: ["--model", "opus"], cursor: ["--force"] };
const PROMPT = 'Issue #15: "fix it"; $HOME `id`\nsecond line;';

async function setup(env: Record<string, string> = {}, opts: { timeoutMs?: number } = {}) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-process-" }));
  const cwd = join(dir, "work");
  await Deno.mkdir(cwd);
  const harnessLog = join(dir, "harness.jsonl");
  const logDir = join(dir, "logs");
  const runner = new ProcessRunner({
    adapter: adapterFor,
    extraArgs: (h) => EXTRA[h],
    logDir,
    timeoutMs: opts.timeoutMs ?? 30_000,
    env: { PATH: pathWithFakes(), FAKE_HARNESS_LOG: harnessLog, ...env },
    killGraceMs: 200,
  });
  const session = (harness: HarnessName, harnessSessionId = ""): HostedSession => ({
    ref: "github:octo/repo#15",
    slug: "github-octo-repo-15",
    harness,
    harnessSessionId,
    cwd,
    tmuxTarget: "",
  });
  const cleanup = () => Deno.remove(dir, { recursive: true });
  return { dir, cwd, harnessLog, logDir, runner, session, cleanup };
}

Deno.test("process runner: a claude spawn runs headless in the session's cwd and learns its id", async () => {
  const t = await setup();
  try {
    const spawned = await t.runner.spawn(t.session("claude"), PROMPT, { resume: false });
    assert.match(spawned.harnessSessionId, /^[0-9a-f-]{36}$/);
    assert.equal(spawned.tmuxTarget, "");
    assert.equal(
      await t.runner.deliver(t.session("claude", spawned.harnessSessionId), "next", {}),
      true,
      "a delivery is a run: the harness took it",
    );
    const boots = (await readHarnessLog(t.harnessLog)).filter((e) => e.event === "boot");
    assert.deepEqual(boots.map((b) => [b.program, b.argv, b.cwd, b.stdin, b.mode]), [
      [
        "claude",
        ["--model", "opus", "-p", PROMPT, "--output-format", "json"],
        t.cwd,
        "",
        "headless",
      ],
      [
        "claude",
        [
          "--model",
          "opus",
          "-p",
          "next",
          "--resume",
          spawned.harnessSessionId,
          "--output-format",
          "json",
        ],
        t.cwd,
        "",
        "headless",
      ],
    ]);
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: each run is appended to <logDir>/<slug>.log under a header without the prompt", async () => {
  const t = await setup();
  try {
    await t.runner.spawn(t.session("claude"), PROMPT, { resume: false });
    await t.runner.deliver(t.session("claude", crypto.randomUUID()), "again", {});
    const log = await Deno.readTextFile(join(t.logDir, "github-octo-repo-15.log"));
    const headers = log.split("\n").filter((l) => l.startsWith("--- ") && l.includes("claude"));
    assert.equal(headers.length, 2, log);
    assert.match(
      headers[0],
      new RegExp(
        `claude --model opus -p <prompt: ${PROMPT.length} chars> --output-format json \\(cwd `,
      ),
    );
    assert.match(headers[1], /-p <prompt: 5 chars> --resume [0-9a-f-]{36} --output-format json/);
    assert.ok(!log.includes("fix it"), "the prompt text is not logged");
    assert.ok(!log.includes("again"), "the prompt text is not logged");
    assert.match(log, /fake claude: working/); // stderr
    assert.match(log, /"type": "result"/); // stdout
    assert.match(log, /--- exit 0 after/);
    // the announcement asks for it by the dispatcher's name (`DispatchRunner.logPath`)
    const asDispatched: DispatchRunner = t.runner;
    assert.equal(
      asDispatched.logPath?.("github-octo-repo-15"),
      join(t.logDir, "github-octo-repo-15.log"),
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: cursor's chat id is learned from the output and resumed", async () => {
  const t = await setup();
  try {
    const spawned = await t.runner.spawn(t.session("cursor"), "start", { resume: false });
    assert.ok(spawned.harnessSessionId);
    await t.runner.deliver(t.session("cursor", spawned.harnessSessionId), "more", {});
    const boots = (await readHarnessLog(t.harnessLog)).filter((e) => e.event === "boot");
    assert.deepEqual(boots.map((b) => [b.program, b.argv]), [
      ["cursor-agent", ["--force", "-p", "start", "--output-format", "json"]],
      ["cursor-agent", [
        "--force",
        "-p",
        "more",
        "--resume",
        spawned.harnessSessionId,
        "--output-format",
        "json",
      ]],
    ]);
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a spawn with resume continues the recorded conversation", async () => {
  const t = await setup();
  try {
    const id = crypto.randomUUID();
    const spawned = await t.runner.spawn(t.session("claude", id), "back", { resume: true });
    assert.equal(spawned.harnessSessionId, id);
    const [boot] = await readHarnessLog(t.harnessLog);
    assert.deepEqual(boot.argv, [
      "--model",
      "opus",
      "-p",
      "back",
      "--resume",
      id,
      "--output-format",
      "json",
    ]);
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a run past the timeout is killed and the error says so", async () => {
  // long enough for python to start and log its boot line; the fake sleeps a minute
  const t = await setup({ FAKE_HARNESS_SLEEP_MS: "60000" }, { timeoutMs: 2000 });
  try {
    await assert.rejects(
      t.runner.deliver(t.session("claude", crypto.randomUUID()), "slow", {}),
      /claude for github:octo\/repo#15 ran longer than 2s and was killed; its output: .*github-octo-repo-15\.log/,
    );
    const [boot] = await readHarnessLog(t.harnessLog);
    assert.equal(await processExists(boot.pid), false);
    assert.match(await Deno.readTextFile(t.runner.logPath("github-octo-repo-15")), /\(timeout\)/);
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a harness ignoring SIGTERM is SIGKILLed after the grace", async () => {
  const t = await setup({ FAKE_HARNESS_SLEEP_MS: "60000", FAKE_HARNESS_IGNORE_TERM: "1" });
  try {
    const running = t.runner.deliver(t.session("cursor", "chat-1"), "slow", {});
    // the fake ignores SIGTERM from before it writes its boot line
    const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length === 1);
    await t.runner.close(t.session("cursor"));
    await assert.rejects(running, /cursor-agent for github:octo\/repo#15 was stopped/);
    assert.equal(await processExists(boot.pid), false);
    assert.match(
      await Deno.readTextFile(t.runner.logPath("github-octo-repo-15")),
      /signal SIGKILL/,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a non-zero exit names the exit code and the log file", async () => {
  const t = await setup({ FAKE_HARNESS_EXIT: "3" });
  try {
    await assert.rejects(
      t.runner.deliver(t.session("claude", crypto.randomUUID()), "x", {}),
      (err: Error) => {
        assert.match(err.message, /claude for github:octo\/repo#15 failed with exit code 3/);
        assert.ok(err.message.includes(join(t.logDir, "github-octo-repo-15.log")), err.message);
        return true;
      },
    );
    assert.match(
      await Deno.readTextFile(t.runner.logPath("github-octo-repo-15")),
      /failing with exit code 3/,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a new conversation whose output has no id is an error", async () => {
  const t = await setup({ FAKE_HARNESS_NO_ID: "1" });
  try {
    await assert.rejects(
      t.runner.spawn(t.session("cursor"), "x", { resume: false }),
      /cursor-agent for github:octo\/repo#15 printed no session id .* cannot be continued/,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: deliver without a recorded id is refused without running anything", async () => {
  const t = await setup();
  try {
    await assert.rejects(
      t.runner.deliver(t.session("cursor"), "x", {}),
      /github:octo\/repo#15 has no cursor-agent conversation id to resume/,
    );
    assert.deepEqual(await readHarnessLog(t.harnessLog), []);
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: close ends a run still going, and an abort does too", async () => {
  const t = await setup({ FAKE_HARNESS_SLEEP_MS: "60000" });
  try {
    const running = t.runner.deliver(t.session("claude", crypto.randomUUID()), "long", {});
    const [boot] = await waitForHarnessLog(t.harnessLog, (e) => e.length === 1);
    await t.runner.close(t.session("claude"));
    await assert.rejects(running, /was stopped: its session was closed/);
    assert.equal(await processExists(boot.pid), false);

    const ac = new AbortController();
    const aborted = t.runner.deliver(t.session("claude", crypto.randomUUID()), "long", {
      signal: ac.signal,
    });
    const entries = await waitForHarnessLog(t.harnessLog, (e) => e.length === 2);
    ac.abort(new Error("dispatch cancelled"));
    await assert.rejects(aborted, /dispatch cancelled/);
    assert.equal(await processExists(entries[1].pid), false);
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a harness missing from PATH is a clear error", async () => {
  const t = await setup({ PATH: "/nonexistent" });
  try {
    await assert.rejects(
      t.runner.spawn(t.session("claude"), "x", { resume: false }),
      /could not start claude: claude is not installed or not on PATH/,
    );
  } finally {
    await t.cleanup();
  }
});
