/** The demo agent's shell: claude's argv read, and prompts read whole from bracketed pastes. */
import assert from "node:assert/strict";
import { parseAgentArgs, PasteReader } from "./agent.ts";

Deno.test("parseAgentArgs reads claude's argv as the adapter writes it", () => {
  // interactive: <own…> --session-id <id> <prompt>
  assert.deepEqual(
    parseAgentArgs(["--permission-mode", "acceptEdits", "--session-id", "id-1", "do it"]),
    { headless: false, sessionId: "id-1", prompt: "do it" },
  );
  // a resume without a prompt
  assert.deepEqual(parseAgentArgs(["--resume", "id-2"]), {
    headless: false,
    sessionId: "id-2",
    prompt: "",
  });
  // headless: -p <prompt> [--resume id] --output-format json <own…>
  assert.deepEqual(
    parseAgentArgs(["-p", "hi", "--resume", "id-3", "--output-format", "json", "--max-turns", "5"]),
    { headless: true, sessionId: "id-3", prompt: "hi" },
  );
  // a prompt that starts with a dash comes after --
  assert.deepEqual(parseAgentArgs(["-p", "--output-format", "json", "--", "- a list"]), {
    headless: true,
    sessionId: undefined,
    prompt: "- a list",
  });
});

Deno.test("PasteReader: whole pastes, across chunks; keys typed outside them", () => {
  const r = new PasteReader();
  assert.deepEqual(r.feed("x\x1b[20"), { pastes: [], keys: "x" });
  assert.deepEqual(r.feed("0~line one\rline"), { pastes: [], keys: "" });
  assert.deepEqual(r.feed(" two\x1b[201~\r\x1b[200~b\x1b[201~\x03"), {
    pastes: ["line one\nline two", "b"],
    keys: "\r\x03",
  });
});
