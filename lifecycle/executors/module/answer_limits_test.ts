/**
 * Attacks on the size of a module hook's answer: it is measured inside the worker, as JSON with
 * every reference counted, and refused there when over 1 MiB, so nothing large crosses to
 * the-loop (the host's memory is not blown, the event log gets no giant record); each decision
 * is then held to its own cap when the answer is applied.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ANSWER_MAX_BYTES, DECISION_MAX_BYTES } from "../../sdk/contract.ts";
import { HookFailure } from "../../executor.ts";
import { ANSWER_MAX_BYTES as RUNTIME_MAX, checkAnswer } from "./_runtime_answer.ts";
import { loadFixture } from "./_test_utils.ts";

const T = { timeoutMs: 20_000 };
const IN_WORKER = /Measured in the hook's worker before it was sent to the-loop: nothing was sent/;

Deno.test("the worker's cap is the contract's, and its message lists the decisions' caps", () => {
  assert.equal(RUNTIME_MAX, ANSWER_MAX_BYTES);
  const kib = (n: number) => `${n / 1024} KiB`;
  const msg = (() => {
    try {
      checkAnswer({ reason: "x".repeat(ANSWER_MAX_BYTES) });
    } catch (e) {
      return (e as Error).message;
    }
  })() ?? "";
  assert.ok(msg.includes(`reason ${kib(DECISION_MAX_BYTES.reason)}`), msg);
  assert.ok(msg.includes(`prompt and text ${kib(DECISION_MAX_BYTES.prompt)}`), msg);
  assert.equal(DECISION_MAX_BYTES.text, DECISION_MAX_BYTES.prompt);
  assert.ok(msg.includes(`question ${kib(DECISION_MAX_BYTES.question)}`), msg);
  assert.ok(msg.includes(`summary ${kib(DECISION_MAX_BYTES.summary)}`), msg);
});

Deno.test("checkAnswer measures JSON bytes exactly: escapes, UTF-8, numbers, every reference", () => {
  const answers: Record<string, unknown>[] = [
    { reason: "plain text" },
    { r: ['é\u0001"\\\ud800😀', 1.5, 1e21, { "k\n": false, n: null }], u: undefined },
  ];
  for (const a of answers) {
    const size = new TextEncoder().encode(JSON.stringify(a)).length;
    assert.deepEqual(checkAnswer(a, size), JSON.parse(JSON.stringify(a)));
    assert.throws(() => checkAnswer(a, size - 1), /larger than the cap of \d+ bytes/);
  }
  const s = "x".repeat(1000);
  const o = { s };
  const shared = { a: [o, o, o] };
  const size = JSON.stringify(shared).length;
  assert.ok(checkAnswer(shared, size));
  assert.throws(() => checkAnswer(shared, size - 1), /at answer\.a\[2\]\.s/);
});

Deno.test("a 32 MiB reason fails in the worker, naming the field and its size", async () => {
  const hook = await loadFixture("huge_answers.ts");
  try {
    await assert.rejects(hook.call("work_item_start", { kind: "huge_reason" }, T), (e: Error) => {
      assert.ok(e instanceof HookFailure);
      assert.match(e.message, /larger than the cap of 1048576 bytes \(1 MiB\)/);
      assert.match(e.message, /at answer\.reason it is a string of 33554432 characters/);
      assert.match(e.message, IN_WORKER);
      assert.ok(e.message.length < 2000, `a short message: ${e.message.length} characters`);
      return true;
    });
  } finally {
    await hook.close();
  }
});

for (const isolation of ["worker", "process"] as const) {
  Deno.test(`a 16 MiB string referenced 64 times fails in the ${isolation}, host memory intact`, async () => {
    const hook = await loadFixture("huge_answers.ts", { isolation });
    try {
      const before = Deno.memoryUsage().rss;
      await assert.rejects(hook.call("work_item_start", { kind: "repeated" }, T), (e: Error) => {
        assert.ok(e instanceof HookFailure, String(e));
        assert.match(e.message, /at answer\.extra\[0\] it is a string of 16777216 characters/);
        assert.match(e.message, IN_WORKER);
        return true;
      });
      // 64 copies would be 1 GiB here; the worker's own 16 MiB string is all there is
      const grew = Deno.memoryUsage().rss - before;
      assert.ok(grew < 256 * 1024 * 1024, `the host grew by ${grew} bytes`);
      // the hook still answers
      assert.equal((await hook.call("work_item_start", { kind: "none" }, T)).answer, null);
    } finally {
      await hook.close();
    }
  });
}

Deno.test("references of a small object add up: 64 × 20 KiB passes the whole-answer cap", async () => {
  const hook = await loadFixture("huge_answers.ts");
  try {
    await assert.rejects(
      hook.call("work_item_start", { kind: "repeated_small" }, T),
      /at answer\.extra\[51\]\.s it is a string of 20482 bytes \(20\.0 KiB\)[^]*in the hook's worker/,
    );
    await assert.rejects(
      hook.call("work_item_start", { kind: "multibyte" }, T),
      /at answer\.reason it is a string of 1200002 bytes \(1\.1 MiB\) as JSON/,
    );
  } finally {
    await hook.close();
  }
});

Deno.test("a hook that patches built-ins cannot shrink the measurement or add to the copy", async () => {
  const hook = await loadFixture("huge_answers.ts");
  try {
    // an inherited setter, push, Object.keys: the copy holds exactly what was answered
    const { answer } = await hook.call("work_item_start", { kind: "patched" }, T);
    assert.ok(answer?.note === "small", "the copy holds something else than the answer's note");
    assert.deepEqual(answer, { proceed: true, note: "small" });
    // a lying RegExp exec and charCodeAt: 1.2 MB of "é" is still 1.2 MB
    await assert.rejects(
      hook.call("work_item_start", { kind: "patched_multibyte" }, T),
      /at answer\.reason it is a string of 1200002 bytes/,
    );
  } finally {
    await hook.close();
  }
});

Deno.test("a 32 MiB error message is clipped in the worker, its stack too", async () => {
  const hook = await loadFixture("huge_answers.ts");
  try {
    const err = await hook.call("work_item_start", { kind: "huge_error" }, T).then(
      () => assert.fail("the call should fail"),
      (e) => e,
    );
    assert.ok(err instanceof HookFailure);
    assert.ok(err.message.length < 16_000, `message is ${err.message.length} characters`);
    assert.match(err.message, /more characters\)/);
    // the frames survive the clipping: the stack was rebuilt, not dropped
    assert.match(err.message, /huge_answers\.ts/);
  } finally {
    await hook.close();
  }
});
