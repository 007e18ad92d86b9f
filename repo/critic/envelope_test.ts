import assert from "node:assert/strict";
import type { BoundedRunResult } from "../../dispatch/mod.ts";
import { adapterFor } from "../../dispatch/mod.ts";
import type { Critic } from "./config.ts";
import { criticEnvelope } from "./envelope.ts";

const BASE = {
  model: null,
  env: {},
  timeoutSeconds: 60,
  enabled: true,
  path: "reviews.critics[0]",
};
const CLAUDE: Critic = { ...BASE, name: "rev", kind: "harness", harness: "claude", model: "opus" };
const CMD: Critic = { ...BASE, name: "lint", kind: "command", command: "lint", args: [] };

const run = (r: Partial<BoundedRunResult>): BoundedRunResult => ({
  outcome: "exited",
  code: 0,
  signal: null,
  pid: 1,
  stdout: "",
  stderr: "",
  durationMs: 1234,
  ...r,
});

const RESULT = JSON.stringify({
  type: "result",
  result: "Two issues: …",
  total_cost_usd: 0.25,
  usage: { input_tokens: 10, output_tokens: 5 },
  num_turns: 2,
});

Deno.test("a harness critic's envelope: the result text, the usage, no error", () => {
  const e = criticEnvelope({
    critic: CLAUDE,
    program: "claude",
    result: run({ stdout: RESULT }),
    timeoutSeconds: 60,
    adapter: adapterFor("claude"),
  });
  assert.deepEqual(e, {
    critic: "rev",
    harness: "claude",
    model: "opus",
    ok: true,
    exitCode: 0,
    durationSeconds: 1.234,
    output: "Two issues: …",
    error: null,
    usage: { costUsd: 0.25, tokens: 15, turns: 2 },
  });
});

Deno.test("an adapter without answerFromOutput: the raw stdout is the output", () => {
  const e = criticEnvelope({
    critic: CLAUDE,
    program: "claude",
    result: run({ stdout: "plain text\n" }),
    timeoutSeconds: 60,
    adapter: { usageFromOutput: () => undefined },
  });
  assert.equal(e.output, "plain text\n");
  assert.equal(e.usage, null);
});

Deno.test("a command critic: its stdout, harness and usage null", () => {
  const e = criticEnvelope({
    critic: CMD,
    program: "lint",
    result: run({ stdout: "ok\n" }),
    timeoutSeconds: 60,
  });
  assert.deepEqual([e.harness, e.output, e.usage, e.ok], [null, "ok\n", null, true]);
});

Deno.test("failures: ok false, an error saying what failed and what to do", () => {
  const cases: [Partial<BoundedRunResult>, RegExp][] = [
    [
      { outcome: "not-found", code: null, pid: null },
      /lint is not installed or not on PATH: install it, or fix reviews\.critics\[0\]\.command/,
    ],
    [
      { outcome: "timeout", code: null, signal: "SIGTERM", stderr: "slow\n" },
      /ran longer than 60s and was killed .*raise reviews\.critics\[0\]\.timeoutSeconds or pass --timeout; its stderr ends: slow/,
    ],
    [
      { code: 3, stderr: "boom\nbang" },
      /lint failed with exit code 3; its stderr ends: boom \| bang/,
    ],
    [{ code: null, signal: "SIGKILL" }, /was ended by SIGKILL/],
  ];
  for (const [r, want] of cases) {
    const e = criticEnvelope({ critic: CMD, program: "lint", result: run(r), timeoutSeconds: 60 });
    assert.equal(e.ok, false);
    assert.match(e.error ?? "", want);
    assert.equal(e.exitCode, r.code === undefined ? 0 : r.code);
  }
  const absent = criticEnvelope({
    critic: CLAUDE,
    program: "claude",
    result: run({ outcome: "not-found", code: null }),
    timeoutSeconds: 60,
    adapter: adapterFor("claude"),
  });
  assert.match(absent.error ?? "", /claude \(the claude CLI\) is not installed or not on PATH/);
});
