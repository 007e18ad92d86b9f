import assert from "node:assert/strict";
import { adapterFor, claudeAdapter, cursorAdapter, isResumableId } from "./mod.ts";

const ID = "0b5c3f7e-2a4d-4c8e-9f10-1234567890ab";
const EXTRA = ["--model", "opus"];
const PROMPT = 'Work on "it"; $HOME `x` \n line two;';

Deno.test("claude boots interactively with its pre-assigned id and the prompt as one element", () => {
  assert.deepEqual(
    claudeAdapter.interactive({ sessionId: ID, prompt: PROMPT, extraArgs: EXTRA }),
    ["--model", "opus", "--session-id", ID, PROMPT],
  );
  assert.equal(claudeAdapter.program, "claude");
  assert.equal(claudeAdapter.preassignsId, true);
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
  assert.equal(cursorAdapter.preassignsId, false);
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

Deno.test("adapterFor names both harnesses and refuses others", () => {
  assert.equal(adapterFor("claude"), claudeAdapter);
  assert.equal(adapterFor("cursor"), cursorAdapter);
  assert.throws(() => adapterFor("codex" as "claude"), /unknown harness "codex"/);
});

Deno.test("isResumableId: a UUID for claude, a plain token for cursor", () => {
  assert.equal(isResumableId("claude", ID), true);
  assert.equal(isResumableId("claude", "abc"), false);
  assert.equal(isResumableId("claude", ""), false);
  assert.equal(isResumableId("cursor", "abc-123"), true);
  assert.equal(isResumableId("cursor", "-abc"), false);
  assert.equal(isResumableId("cursor", "a b"), false);
});
