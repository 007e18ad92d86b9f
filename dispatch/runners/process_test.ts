import assert from "node:assert/strict";
import type { DispatchRunner } from "../seams.ts";
import { join } from "node:path";
import { adapterFor } from "../harness/mod.ts";
import type { HarnessName, HarnessUsage, HostedSession } from "../seams.ts";
import { ProcessRunner } from "./mod.ts";
import {
  pathWithFakes,
  processExists,
  readHarnessLog,
  waitForHarnessLog,
} from "../../tests/fake_harness/mod.ts";

const EXTRA: Record<HarnessName, string[]> = {
  claude: ["--model", "opus"],
  cursor: ["--force"],
  codex: [],
  gemini: [],
  opencode: [],
};
const PROMPT = 'Issue #15: "fix it"; $HOME `id`\nsecond line;';

async function setup(
  env: Record<string, string> = {},
  opts: { timeoutMs?: number; warn?: (m: string) => void } = {},
) {
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
    ...(opts.warn ? { warn: opts.warn } : {}),
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

const USED = { FAKE_HARNESS_COST: "0.25", FAKE_HARNESS_TOKENS: "1001", FAKE_HARNESS_TURNS: "3" };

Deno.test("process runner: each claude run reports what it used once, and carries its caps", async () => {
  const t = await setup(USED);
  try {
    const used: HarnessUsage[] = [];
    const onUsage = (u: HarnessUsage) => used.push(u);
    const spawned = await t.runner.spawn(t.session("claude"), "start", {
      resume: false,
      limits: { maxTurns: 7, maxBudgetUsd: 1.5 },
      onUsage,
    });
    assert.deepEqual(used, [{ costUsd: 0.25, tokens: 1001, turns: 3 }]);
    const id = spawned.harnessSessionId;
    assert.equal(
      await t.runner.deliver(t.session("claude", id), "more", {
        limits: { maxBudgetUsd: 0.5 },
        onUsage,
      }),
      true,
    );
    await t.runner.spawn(t.session("claude", id), "back", { resume: true, onUsage });
    assert.deepEqual(used, Array(3).fill({ costUsd: 0.25, tokens: 1001, turns: 3 }));
    const boots = (await readHarnessLog(t.harnessLog)).filter((e) => e.event === "boot");
    const json = ["--output-format", "json"];
    assert.deepEqual(boots.map((b) => b.argv), [
      [...EXTRA.claude, "-p", "start", ...json, "--max-turns", "7", "--max-budget-usd", "1.5"],
      [...EXTRA.claude, "-p", "more", "--resume", id, ...json, "--max-budget-usd", "0.5"],
      [...EXTRA.claude, "-p", "back", "--resume", id, ...json],
    ]);
    // the log header shows the caps (the prompt still masked)
    assert.match(
      await Deno.readTextFile(t.runner.logPath("github-octo-repo-15")),
      /-p <prompt: 5 chars> --output-format json --max-turns 7 --max-budget-usd 1\.5 \(cwd /,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a run its cap stopped fails, and still reports what it used", async () => {
  const t = await setup({ ...USED, FAKE_HARNESS_COST: "1.5", FAKE_HARNESS_CAPPED: "budget" });
  try {
    const used: HarnessUsage[] = [];
    await assert.rejects(
      t.runner.deliver(t.session("claude", crypto.randomUUID()), "x", {
        limits: { maxBudgetUsd: 1.5 },
        onUsage: (u) => used.push(u),
      }),
      /claude for github:octo\/repo#15 failed with exit code 1/,
    );
    assert.deepEqual(used, [{ costUsd: 1.5, tokens: 1001, turns: 3 }]);
    assert.match(
      await Deno.readTextFile(t.runner.logPath("github-octo-repo-15")),
      /error_max_budget_usd/,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("process runner: a run that reports nothing calls no onUsage", async () => {
  for (
    const [harness, env] of [
      ["claude", {}], // a result without cost, usage or turns
      ["claude", { ...USED, FAKE_HARNESS_EXIT: "2" }], // a failure that printed no result
      ["cursor", USED], // cursor-agent's result has none of it
    ] as [HarnessName, Record<string, string>][]
  ) {
    const t = await setup(env);
    try {
      const used: HarnessUsage[] = [];
      const run = t.runner.deliver(t.session(harness, crypto.randomUUID()), "x", {
        limits: { maxTurns: 3, maxBudgetUsd: 1 },
        onUsage: (u) => used.push(u),
      });
      if (env.FAKE_HARNESS_EXIT) await assert.rejects(run, /failed with exit code 2/);
      else assert.equal(await run, true);
      assert.deepEqual(used, [], `${harness} ${JSON.stringify(env)}`);
      const [boot] = await readHarnessLog(t.harnessLog);
      assert.equal(boot.argv?.includes("--max-turns"), harness === "claude", "caps: claude only");
    } finally {
      await t.cleanup();
    }
  }
});

Deno.test("process runner: an onUsage that throws is warned about, and the run still succeeds", async () => {
  const warnings: string[] = [];
  const t = await setup(USED, { warn: (m) => warnings.push(m) });
  try {
    const spawned = await t.runner.spawn(t.session("claude"), "x", {
      resume: false,
      onUsage: () => {
        throw new Error("registry is read-only");
      },
    });
    assert.match(spawned.harnessSessionId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(warnings, [
      "claude for github:octo/repo#15: recording what the run used failed: registry is read-only",
    ]);
  } finally {
    await t.cleanup();
  }
});
