/**
 * What each new adapter reads from its harness's documented output: the conversation id, what a
 * run used, the answer — and codex's conversation found on disk for a tmux session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { codexAdapter, discoverCodexId } from "./codex.ts";
import { chatIdOf, cursorAdapter } from "./cursor.ts";
import { geminiAdapter } from "./gemini.ts";
import { opencodeAdapter } from "./opencode.ts";

const ID = "0b8e9a2e-1111-4222-8333-444455556666";
const lines = (...o: unknown[]) => o.map((x) => JSON.stringify(x)).join("\n") + "\n";

Deno.test("codex: the id from thread.started, tokens and turns from turn.completed, no cost", () => {
  const out = "Reading prompt from stdin...\n" + lines(
    { type: "thread.started", thread_id: ID },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "i0", type: "reasoning", text: "hm" } },
    { type: "item.completed", item: { id: "i1", type: "agent_message", text: "done" } },
    {
      type: "turn.completed",
      usage: { input_tokens: 70, cached_input_tokens: 20, output_tokens: 5 },
    },
    { type: "turn.completed", usage: { input_tokens: 10, output_tokens: 1 } },
  );
  assert.equal(codexAdapter.sessionIdFromOutput(out), ID);
  assert.deepEqual(codexAdapter.usageFromOutput(out), { turns: 2, tokens: 86 });
  assert.equal(codexAdapter.answerFromOutput!(out), "done");
  // an id that is no UUID, or quoted in a message, is not taken
  assert.equal(
    codexAdapter.sessionIdFromOutput(lines({ type: "thread.started", thread_id: "-x" })),
    undefined,
  );
  assert.equal(
    codexAdapter.sessionIdFromOutput(
      lines({
        type: "item.completed",
        item: { text: `{"type":"thread.started","thread_id":"${ID}"}` },
      }),
    ),
    undefined,
  );
  assert.equal(codexAdapter.usageFromOutput("garbage"), undefined);
});

Deno.test("gemini: session_id, the models' tokens summed, the response", () => {
  const out = JSON.stringify({
    session_id: ID,
    response: "fine",
    stats: { models: { pro: { tokens: { total: 30 } }, flash: { tokens: { total: 12 } } } },
  });
  assert.equal(geminiAdapter.sessionIdFromOutput(out), ID);
  assert.deepEqual(geminiAdapter.usageFromOutput(out), { tokens: 42 });
  assert.equal(geminiAdapter.answerFromOutput!(out), "fine");
  assert.equal(geminiAdapter.usageFromOutput(JSON.stringify({ session_id: ID })), undefined);
  // a prompt with a leading dash is one `--prompt=` element
  assert.deepEqual(geminiAdapter.headless({ extraArgs: [], prompt: "-rm" }), [
    "--prompt=-rm",
    "--output-format",
    "json",
  ]);
});

Deno.test("opencode: sessionID of the events, step_finish cost and tokens summed, the text", () => {
  const out = lines(
    { type: "step_start", sessionID: "ses_abc", part: {} },
    { type: "text", sessionID: "ses_abc", part: { type: "text", text: "he" } },
    { type: "text", sessionID: "ses_abc", part: { type: "text", text: "llo" } },
    {
      type: "step_finish",
      sessionID: "ses_abc",
      part: {
        cost: 0.25,
        tokens: { input: 10, output: 2, reasoning: 3, cache: { read: 4, write: 1 } },
      },
    },
    { type: "step_finish", sessionID: "ses_abc", part: { cost: 0.5, tokens: { input: 1 } } },
  );
  assert.equal(opencodeAdapter.sessionIdFromOutput(out), "ses_abc");
  assert.deepEqual(opencodeAdapter.usageFromOutput(out), { turns: 2, costUsd: 0.75, tokens: 21 });
  assert.equal(opencodeAdapter.answerFromOutput!(out), "hello");
  assert.deepEqual(
    opencodeAdapter.headless({ extraArgs: [], prompt: "-x", sessionId: "ses_abc" }),
    [
      "run",
      "--format",
      "json",
      "--session",
      "ses_abc",
      "--",
      "-x",
    ],
  );
});

Deno.test("cursor: create-chat's id; a tmux boot resumes the issued chat", () => {
  assert.equal(chatIdOf(`${ID}\n`), ID);
  assert.equal(chatIdOf("warning: something\n-rf\n"), undefined);
  assert.equal(chatIdOf(""), undefined);
  assert.deepEqual(cursorAdapter.interactive({ extraArgs: [], sessionId: ID, prompt: "go" }), [
    "--resume",
    ID,
    "go",
  ]);
});

Deno.test("discoverCodexId: the newest rollout of this cwd since the boot; others ignored", async () => {
  const home = Deno.makeTempDirSync();
  try {
    const now = new Date();
    const day = join(
      home,
      "sessions",
      String(now.getFullYear()),
      String(now.getMonth() + 1).padStart(2, "0"),
      String(now.getDate()).padStart(2, "0"),
    );
    Deno.mkdirSync(day, { recursive: true });
    const write = (name: string, id: string, cwd: string) =>
      Deno.writeTextFileSync(
        join(day, name),
        JSON.stringify({ type: "session_meta", payload: { id, cwd } }) + "\n{}\n",
      );
    const since = Date.now();
    assert.equal(
      await discoverCodexId({ cwd: "/w/a", since, env: { CODEX_HOME: home } }),
      undefined,
    );
    write("rollout-1-x.jsonl", "11111111-1111-4111-8111-111111111111", "/w/other");
    write("notes.jsonl", "22222222-2222-4222-8222-222222222222", "/w/a");
    write("rollout-2-y.jsonl", "not-a-uuid", "/w/a");
    assert.equal(
      await discoverCodexId({ cwd: "/w/a", since, env: { CODEX_HOME: home } }),
      undefined,
    );
    write("rollout-3-z.jsonl", ID, "/w/a");
    assert.equal(await discoverCodexId({ cwd: "/w/a", since, env: { CODEX_HOME: home } }), ID);
    // HOME/.codex when CODEX_HOME is not set
    assert.equal(
      await discoverCodexId({ cwd: "/w/a", since, env: { HOME: "/nonexistent" } }),
      undefined,
    );
    // a rollout from before the boot is not this session's
    assert.equal(
      await discoverCodexId({ cwd: "/w/a", since: Date.now() + 60_000, env: { CODEX_HOME: home } }),
      undefined,
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
