import assert from "node:assert/strict";
import { inputActions, inputCommands } from "./_keys.ts";

Deno.test("keys: text, Enter, arrows in both cursor modes, Ctrl and Alt are whitelisted keys", () => {
  assert.deepEqual(inputActions("ls -la\r"), [
    { kind: "text", text: "ls -la" },
    { kind: "key", key: "Enter" },
  ]);
  assert.deepEqual(
    inputActions("\x1b[A\x1bOB\x1b[1;5C\x7f\t\x03\x1bx\x1b[3~\x1bOP\x1b"),
    ["Up", "Down", "C-Right", "BSpace", "Tab", "C-c", "M-x", "DC", "F1", "Escape"]
      .map((key) => ({ kind: "key", key })),
  );
});

Deno.test("keys: unknown escape sequences and stray control bytes are dropped, never typed", () => {
  // an OSC 52 (clipboard) and a mouse report: not on the list, nothing of them is sent
  const actions = inputActions("a\x1b[?1049h\x1b[<0;3;4Mb\x9b\x1c");
  assert.deepEqual(actions, [{ kind: "text", text: "ab" }]);
  // ESC ] is no key: Escape, then the rest as inert text, BEL as the Ctrl+G it is
  assert.deepEqual(inputActions("\x1b]52;c;cHduZWQ=\x07"), [
    { kind: "key", key: "Escape" },
    { kind: "text", text: "]52;c;cHduZWQ=" },
    { kind: "key", key: "C-g" },
  ]);
});

Deno.test("keys: a paste is sanitised like a prompt: its controls become stand-ins", () => {
  assert.deepEqual(inputActions("\x1b[200~a\x1b[31mb\x03\r\nc\x1b[201~\r"), [
    { kind: "paste", text: "a␛[31mb␃\nc" },
    { kind: "key", key: "Enter" },
  ]);
  // an end marker outside a paste is an unknown sequence: dropped
  assert.deepEqual(inputActions("two\x1b[201~x"), [{ kind: "text", text: "twox" }]);
});

Deno.test("keys: the page's text is one quoted word of send-keys -l or set-buffer, never a command", () => {
  const actions = inputActions('"; kill-server ; "\r\x1b[200~-x;\x1b[201~');
  let n = 0;
  const { commands, answers } = inputCommands("loop-x", actions, () => `buf-${++n}`);
  assert.deepEqual(commands.slice(0, 3), [
    ["send-keys", "-l", "-t", "=loop-x:", "--", '"; kill-server ; "'],
    ["send-keys", "-t", "=loop-x:", "Enter"],
    ["set-buffer", "-b", "buf-1", "--", "-x;"],
  ]);
  assert.equal(commands[3][0], "if-shell");
  assert.ok(commands[3].at(-1)!.includes('"paste-buffer" "-d" "-p" "-b" "buf-1"'));
  assert.ok(!commands[3].at(-1)!.includes("Enter"), "a paste presses no Enter");
  assert.equal(answers, 1 + 1 + 1 + 3);
});
