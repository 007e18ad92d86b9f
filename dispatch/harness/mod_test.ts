import assert from "node:assert/strict";
import { adapterFor, claudeAdapter, cursorAdapter, isResumableId } from "./mod.ts";
import { HARNESS_NAMES } from "../seams.ts";

const ID = "0b5c3f7e-2a4d-4c8e-9f10-1234567890ab";
const EXTRA = ["--model", "opus"];
const PROMPT = 'Work on "it"; $HOME `x` \n line two;';

Deno.test("claude boots interactively with its pre-assigned id and the prompt as one element", () => {
  assert.deepEqual(
    claudeAdapter.interactive({ sessionId: ID, prompt: PROMPT, extraArgs: EXTRA }),
    ["--model", "opus", "--session-id", ID, PROMPT],
  );
  assert.equal(claudeAdapter.program, "claude");
  assert.equal(claudeAdapter.ids.kind, "preassign");
});

Deno.test("claude resumes with --resume, the prompt optional", () => {
  assert.deepEqual(
    claudeAdapter.resume({ sessionId: ID, prompt: PROMPT, extraArgs: [] }),
    ["--resume", ID, PROMPT],
  );
  assert.deepEqual(claudeAdapter.resume({ sessionId: ID, extraArgs: EXTRA }), [
    "--model",
    "opus",
    "--resume",
    ID,
  ]);
});

Deno.test("claude headless: -p <prompt> [--resume <id>] --output-format json", () => {
  assert.deepEqual(
    claudeAdapter.headless({ sessionId: ID, prompt: PROMPT, extraArgs: EXTRA }),
    ["--model", "opus", "-p", PROMPT, "--resume", ID, "--output-format", "json"],
  );
  assert.deepEqual(
    claudeAdapter.headless({ prompt: PROMPT, extraArgs: [] }),
    ["-p", PROMPT, "--output-format", "json"],
  );
});

Deno.test("cursor-agent: -p <prompt> --resume <chatId> --output-format json; boot and resume", () => {
  assert.equal(cursorAdapter.program, "cursor-agent");
  assert.equal(cursorAdapter.ids.kind, "issue");
  assert.deepEqual(
    cursorAdapter.headless({ sessionId: "chat-1", prompt: PROMPT, extraArgs: ["--force"] }),
    ["--force", "-p", PROMPT, "--resume", "chat-1", "--output-format", "json"],
  );
  assert.deepEqual(cursorAdapter.headless({ prompt: "hi", extraArgs: [] }), [
    "-p",
    "hi",
    "--output-format",
    "json",
  ]);
  assert.deepEqual(
    cursorAdapter.interactive({ sessionId: "", prompt: PROMPT, extraArgs: ["--force"] }),
    ["--force", PROMPT],
  );
  assert.deepEqual(
    cursorAdapter.resume({ sessionId: "chat-1", prompt: "go", extraArgs: [] }),
    ["--resume", "chat-1", "go"],
  );
});

Deno.test("a prompt starting with a dash is passed after -- so it cannot be read as a flag", () => {
  assert.deepEqual(
    claudeAdapter.interactive({ sessionId: ID, prompt: "--help me", extraArgs: [] }),
    ["--session-id", ID, "--", "--help me"],
  );
  assert.deepEqual(
    claudeAdapter.headless({ sessionId: ID, prompt: "-x", extraArgs: [] }),
    ["-p", "--resume", ID, "--output-format", "json", "--", "-x"],
  );
  assert.deepEqual(
    cursorAdapter.resume({ sessionId: "c", prompt: "-v", extraArgs: [] }),
    ["--resume", "c", "--", "-v"],
  );
});

Deno.test("sessionIdFromOutput reads the top-level session_id of the JSON result", () => {
  const result = JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: `{"session_id":"11111111-1111-4111-8111-111111111111"}`,
    session_id: ID,
  });
  assert.equal(claudeAdapter.sessionIdFromOutput(result + "\n"), ID);
  assert.equal(claudeAdapter.sessionIdFromOutput(`noise\n${result}\n`), ID);
  assert.equal(
    cursorAdapter.sessionIdFromOutput(`{"type":"result","session_id":"abc-123"}`),
    "abc-123",
  );
  assert.equal(
    claudeAdapter.sessionIdFromOutput(`{"type":"result","session_id":"not-a-uuid"}`),
    undefined,
  );
  assert.equal(cursorAdapter.sessionIdFromOutput(`{"session_id":"--evil"}`), undefined);
  assert.equal(cursorAdapter.sessionIdFromOutput("plain text"), undefined);
  assert.equal(cursorAdapter.sessionIdFromOutput(""), undefined);
});

Deno.test("adapterFor names the five harnesses and refuses others", () => {
  assert.equal(adapterFor("claude"), claudeAdapter);
  assert.equal(adapterFor("cursor"), cursorAdapter);
  for (const h of HARNESS_NAMES) assert.equal(adapterFor(h).name, h);
  assert.throws(
    () => adapterFor("aider" as "claude"),
    /unknown harness "aider": use one of claude, cursor, codex, gemini, opencode/,
  );
  assert.throws(() => adapterFor("toString" as "claude"), /unknown harness "toString"/);
});

Deno.test("isResumableId: a UUID for claude, a plain token for cursor", () => {
  assert.equal(isResumableId("claude", ID), true);
  assert.equal(isResumableId("claude", "abc"), false);
  assert.equal(isResumableId("claude", ""), false);
  assert.equal(isResumableId("cursor", "abc-123"), true);
  assert.equal(isResumableId("cursor", "-abc"), false);
  assert.equal(isResumableId("cursor", "a b"), false);
});

/** A result as `claude -p --output-format json` prints it (one line, then a newline). */
const CLAUDE_RESULT = {
  type: "result",
  subtype: "success",
  is_error: false,
  duration_ms: 2914,
  duration_api_ms: 4608,
  num_turns: 4,
  result: `{"total_cost_usd": 99, "num_turns": 99}`,
  session_id: ID,
  total_cost_usd: 0.0421,
  usage: {
    input_tokens: 12,
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 15000,
    output_tokens: 420,
    server_tool_use: { web_search_requests: 0 },
    service_tier: "standard",
  },
};

Deno.test("claude usageFromOutput: total_cost_usd, the four token counts summed, num_turns", () => {
  const want = { costUsd: 0.0421, tokens: 12 + 3000 + 15000 + 420, turns: 4 };
  const line = JSON.stringify(CLAUDE_RESULT);
  assert.deepEqual(claudeAdapter.usageFromOutput(line + "\n"), want);
  assert.deepEqual(
    claudeAdapter.usageFromOutput(JSON.stringify(CLAUDE_RESULT, null, 2)),
    want,
    "a pretty-printed object is read whole",
  );
  assert.deepEqual(
    claudeAdapter.usageFromOutput(`warning: something\n${line}\n`),
    want,
    "the last line when noise comes first",
  );
  // stream-json: the assistant messages carry their own usage; only the result counts
  const stream = [
    { type: "system", subtype: "init", session_id: ID },
    { type: "assistant", message: { usage: { input_tokens: 5, output_tokens: 5 } }, usage: {} },
    CLAUDE_RESULT,
  ].map((o) => JSON.stringify(o)).join("\n");
  assert.deepEqual(claudeAdapter.usageFromOutput(stream), want);
  // a run its cap stopped still says what it used
  assert.deepEqual(
    claudeAdapter.usageFromOutput(JSON.stringify({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
      num_turns: 2,
      total_cost_usd: 0.5,
      session_id: ID,
    })),
    { costUsd: 0.5, turns: 2 },
  );
});

Deno.test("claude usageFromOutput: a field missing or malformed is left out; none at all is undefined", () => {
  const only = (o: Record<string, unknown>) =>
    claudeAdapter.usageFromOutput(JSON.stringify({ type: "result", session_id: ID, ...o }));
  assert.deepEqual(only({ total_cost_usd: 0 }), { costUsd: 0 });
  assert.deepEqual(only({ usage: { output_tokens: 7 } }), { tokens: 7 });
  assert.deepEqual(only({ usage: { input_tokens: 3, output_tokens: "7" } }), { tokens: 3 });
  assert.deepEqual(only({ num_turns: 1, total_cost_usd: -1 }), { turns: 1 });
  assert.equal(only({}), undefined, "a result that reports nothing");
  assert.equal(only({ total_cost_usd: "0.1", num_turns: 1.5, usage: [1, 2] }), undefined);
  assert.equal(only({ usage: { input_tokens: -4, output_tokens: null } }), undefined);
  assert.equal(only({ usage: null, num_turns: Number.MAX_VALUE }), undefined);
  assert.equal(
    claudeAdapter.usageFromOutput(JSON.stringify({ type: "assistant", total_cost_usd: 1 })),
    undefined,
    "only a result object is read",
  );
});

Deno.test("usageFromOutput never throws on garbage, and reads nothing from it", () => {
  const garbage = [
    "",
    "   \n  ",
    "plain text",
    "{",
    "null",
    "42",
    '"total_cost_usd"',
    "[]",
    '[{"type":"result","total_cost_usd":1}]',
    "\u0000\uffff\ud800",
    '{"type":"result","usage":{"input_tokens":1e400}}',
    '{"type":"result","total_cost_usd":1e400,"num_turns":-0.5}',
    "{}".repeat(10_000),
  ];
  for (const g of garbage) {
    assert.equal(claudeAdapter.usageFromOutput(g), undefined, JSON.stringify(g.slice(0, 40)));
    assert.equal(cursorAdapter.usageFromOutput(g), undefined);
  }
});

Deno.test("cursor usageFromOutput: its documented result reports no cost, tokens or turns", () => {
  const documented = JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 1234,
    duration_api_ms: 1234,
    result: "done",
    session_id: "chat-1",
    request_id: "req-1",
  });
  assert.equal(cursorAdapter.usageFromOutput(documented), undefined);
});

Deno.test("claude headless: the run's limits become --max-turns and --max-budget-usd", () => {
  assert.deepEqual(
    claudeAdapter.headless({
      sessionId: ID,
      prompt: "go",
      extraArgs: EXTRA,
      limits: { maxTurns: 12, maxBudgetUsd: 2.5 },
    }),
    [
      ...EXTRA,
      "-p",
      "go",
      "--resume",
      ID,
      "--output-format",
      "json",
      "--max-turns",
      "12",
      "--max-budget-usd",
      "2.5",
    ],
  );
  assert.deepEqual(
    claudeAdapter.headless({ prompt: "-dash", extraArgs: [], limits: { maxBudgetUsd: 1 } }),
    ["-p", "--output-format", "json", "--max-budget-usd", "1", "--", "-dash"],
    "the caps stay before the `--` that guards a dash prompt",
  );
  const caps = (limits: { maxTurns?: number; maxBudgetUsd?: number }) =>
    claudeAdapter.headless({ prompt: "p", extraArgs: [], limits }).slice(4);
  assert.deepEqual(caps({}), []);
  assert.deepEqual(caps({ maxTurns: 2.9, maxBudgetUsd: 0.123456 }), [
    "--max-turns",
    "2",
    "--max-budget-usd",
    "0.1235",
  ]);
  assert.deepEqual(
    caps({ maxTurns: 0, maxBudgetUsd: -3 }),
    ["--max-turns", "1", "--max-budget-usd", "0.0001"],
    "a spent budget still caps the run at its least",
  );
  assert.deepEqual(caps({ maxTurns: Infinity, maxBudgetUsd: NaN }), [], "not a cap");
  assert.deepEqual(
    claudeAdapter.headless({ prompt: "p", extraArgs: [] }),
    ["-p", "p", "--output-format", "json"],
  );
});

Deno.test("claude headless: a cap the operator set in extraArgs wins and is never given twice", () => {
  const limits = { maxTurns: 5, maxBudgetUsd: 0.75 };
  assert.deepEqual(
    claudeAdapter.headless({ prompt: "p", extraArgs: ["--max-turns", "40"], limits }),
    ["--max-turns", "40", "-p", "p", "--output-format", "json", "--max-budget-usd", "0.75"],
  );
  assert.deepEqual(
    claudeAdapter.headless({ prompt: "p", extraArgs: ["--max-budget-usd=9"], limits }),
    ["--max-budget-usd=9", "-p", "p", "--output-format", "json", "--max-turns", "5"],
  );
  assert.deepEqual(
    claudeAdapter.headless({
      prompt: "p",
      extraArgs: ["--max-turns=1", "--max-budget-usd", "3"],
      limits,
    }),
    ["--max-turns=1", "--max-budget-usd", "3", "-p", "p", "--output-format", "json"],
  );
});

Deno.test("cursor headless: it has no turn or spend cap, so a run's limits are ignored", () => {
  assert.deepEqual(
    cursorAdapter.headless({
      sessionId: "chat-1",
      prompt: "go",
      extraArgs: ["--force"],
      limits: { maxTurns: 3, maxBudgetUsd: 1 },
    }),
    ["--force", "-p", "go", "--resume", "chat-1", "--output-format", "json"],
  );
});

Deno.test("claude and cursor answer with the result object's `result` text, else undefined", () => {
  const out =
    'noise\n{"type":"result","subtype":"success","result":"LGTM: one nit","session_id":"x"}\n';
  for (const adapter of [claudeAdapter, cursorAdapter]) {
    assert.equal(adapter.answerFromOutput?.(out), "LGTM: one nit");
    assert.equal(adapter.answerFromOutput?.("not json"), undefined);
    assert.equal(adapter.answerFromOutput?.('{"type":"result","result":7}'), undefined);
  }
});
