import assert from "node:assert/strict";
import {
  ANSWER_MAX_BYTES,
  applyAnswer,
  ContextError,
  DECISION_MAX_BYTES,
  decisionNames,
  decisionsOf,
  DecisionTypeError,
  makeContext,
  POINT_NAMES,
  POINTS,
  type SessionSpawn,
  sizeText,
  utf8Bytes,
} from "./contract.ts";
import { workItemFromRef } from "./work_item.ts";

const item = workItemFromRef("github:acme/app#42", { kind: "issue" });

function spawn(over: Partial<SessionSpawn> = {}): SessionSpawn {
  return makeContext("session_spawn", {
    work_item: item,
    endpoint: item,
    harness: "claude",
    cwd: "/work/app",
    model: "",
    effort: "",
    harness_args: ["--verbose"],
    respawn: false,
    loop: "pdlc-work-item-loop",
    prompt: "Deliver issue 42.",
    ...over,
  });
}

Deno.test("POINTS is keyed by every point name, in order, each table naming its point", () => {
  assert.deepEqual(Object.keys(POINTS), [...POINT_NAMES]);
  for (const p of POINT_NAMES) {
    assert.equal(POINTS[p].name, p);
    const names = POINTS[p].fields.map((f) => f.name);
    assert.equal(new Set(names).size, names.length, `${p} has a duplicate field`);
    assert.equal(POINTS[p].fields[0].name, "work_item");
    for (const f of POINTS[p].fields) {
      assert.equal(f.decision, f.default !== undefined, `${p}.${f.name}: decisions have defaults`);
    }
  }
});

Deno.test("the decisions are the ones the contract names", () => {
  assert.deepEqual(Object.fromEntries(POINT_NAMES.map((p) => [p, decisionNames(p)])), {
    work_item_start: ["proceed", "reason"],
    session_spawn: ["prompt", "proceed", "reason"],
    session_spawned: ["announce"],
    waiting_for_input: ["question", "summary"],
    input_received: ["text", "proceed", "reason"],
    phase_changed: ["notify"],
    work_item_complete: ["announce"],
  });
});

Deno.test("makeContext fills decision defaults and keeps given starting values", () => {
  const ctx = makeContext("work_item_start", {
    work_item: item,
    loop: "l",
    command: "start",
    actor: "mallory",
    harness: "claude",
    instance: "",
  });
  assert.equal(ctx.proceed, true);
  assert.equal(ctx.reason, "");
  assert.equal(spawn().prompt, "Deliver issue 42.");
  assert.deepEqual(Object.keys(spawn()), POINTS.session_spawn.fields.map((f) => f.name));
});

Deno.test("makeContext takes a bare ref for a WorkItem field", () => {
  // deno-lint-ignore no-explicit-any
  const ctx = spawn({ endpoint: "github:acme/app#43" as any });
  assert.equal(ctx.endpoint.url, "https://github.com/acme/app/issues/43");
});

Deno.test("makeContext names the missing, mistyped or unknown field", () => {
  const check = (fn: () => unknown, field: string, re: RegExp) =>
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof ContextError);
      assert.equal(e.field, field);
      assert.match(e.message, re);
      return true;
    });
  // deno-lint-ignore no-explicit-any
  const any = (x: unknown) => x as any;
  check(() => spawn({ respawn: any("no") }), "respawn", /"respawn" must be a boolean \(got "no"\)/);
  check(() => spawn({ harness_args: any(["a", 1]) }), "harness_args", /array of strings/);
  check(() => spawn({ work_item: any("acme/app#1") }), "work_item", /"work_item": malformed/);
  check(() => spawn({ prompt: any(5) }), "prompt", /"prompt" must be a string/);
  const { cwd: _, ...noCwd } = spawn();
  check(() => makeContext("session_spawn", any(noCwd)), "cwd", /fact "cwd" is missing/);
  check(() => spawn(any({ colour: "red" })), "colour", /"colour" is not a field of session_spawn/);
  check(() => makeContext(any("nope"), any({})), "", /unknown lifecycle point "nope"/);
});

Deno.test("makeContext can ignore unknown keys (the wire's forward compatibility)", () => {
  // deno-lint-ignore no-explicit-any
  const ctx = makeContext("session_spawn", { ...spawn(), colour: "red" } as any, {
    unknownKeys: "ignore",
  });
  assert.ok(!("colour" in ctx));
});

Deno.test("applyAnswer applies decisions and reports the changed ones", () => {
  const ctx = spawn();
  const changed = applyAnswer("session_spawn", ctx, { prompt: "New.", proceed: true }, {
    hook: "policy",
  });
  assert.deepEqual(changed, ["prompt"]);
  assert.equal(ctx.prompt, "New.");
  assert.equal(ctx.proceed, true);
});

Deno.test("applyAnswer ignores facts returned with the same value (the whole context back)", () => {
  const ctx = spawn();
  const answer = { ...structuredClone(ctx), proceed: false, reason: "no" };
  assert.deepEqual(applyAnswer("session_spawn", ctx, answer, { hook: "policy" }), [
    "proceed",
    "reason",
  ]);
  assert.equal(ctx.proceed, false);
  assert.equal(ctx.harness, "claude");
});

function refused(answer: unknown, field: string, message: string) {
  const ctx = spawn();
  const before = structuredClone(ctx);
  assert.throws(() => applyAnswer("session_spawn", ctx, answer, { hook: "policy" }), (e) => {
    assert.ok(e instanceof DecisionTypeError);
    assert.equal(e.message, message);
    assert.deepEqual([e.hook, e.point, e.field], ["policy", "session_spawn", field]);
    return true;
  });
  assert.deepEqual(ctx, before, "nothing was applied");
}

Deno.test("applyAnswer refuses a changed fact, applying nothing", () => {
  refused(
    { prompt: "half", harness: "cursor" },
    "harness",
    'hook "policy" at session_spawn: "harness" is a fact, not a decision (decisions: prompt, proceed, reason)',
  );
  refused(
    { prompt: "half", work_item: workItemFromRef("github:evil/app#1") },
    "work_item",
    'hook "policy" at session_spawn: "work_item" is a fact, not a decision (decisions: prompt, proceed, reason)',
  );
  refused(
    { prompt: "half", harness_args: ["--yolo"] },
    "harness_args", /* */
    'hook "policy" at session_spawn: "harness_args" is a fact, not a decision (decisions: prompt, proceed, reason)',
  );
});

Deno.test("applyAnswer refuses an unknown key, applying nothing", () => {
  refused(
    { prompt: "half", approve: true },
    "approve",
    'hook "policy" at session_spawn: "approve" is not a field of session_spawn (decisions: prompt, proceed, reason)',
  );
});

Deno.test("applyAnswer refuses a wrong-typed decision, applying nothing", () => {
  refused(
    { prompt: "half", proceed: "no" },
    "proceed",
    'hook "policy" at session_spawn: decision "proceed" must be a boolean (got "no")',
  );
  refused(
    { reason: null },
    "reason",
    'hook "policy" at session_spawn: decision "reason" must be a string (got null)',
  );
});

Deno.test("applyAnswer refuses an answer that is not an object", () => {
  for (const bad of [["prompt"], "yes", 1, true]) {
    refused(
      bad,
      "",
      `hook "policy" at session_spawn: the answer must be an object of decisions or nothing (got ${
        Array.isArray(bad) ? "an array" : typeof bad === "string" ? '"yes"' : `${typeof bad} ${bad}`
      })`,
    );
  }
});

Deno.test("applyAnswer passes on null and undefined", () => {
  const ctx = spawn();
  const before = structuredClone(ctx);
  assert.deepEqual(applyAnswer("session_spawn", ctx, null), []);
  assert.deepEqual(applyAnswer("session_spawn", ctx, undefined), []);
  assert.deepEqual(ctx, before);
});

Deno.test("applyAnswer without a hook name still names the point and field", () => {
  assert.throws(
    () =>
      applyAnswer(
        "phase_changed",
        makeContext("phase_changed", {
          work_item: item,
          loop: "l",
          from_node: "",
          to_node: "a",
          from_phase: "",
          to_phase: "p",
          outcome: "",
          actor: "agent",
          terminal: false,
        }),
        { notify: 0 },
      ),
    /^DecisionTypeError: a hook at phase_changed: decision "notify" must be a boolean \(got number 0\)$/,
  );
});

Deno.test("decisionsOf copies only the decisions", () => {
  assert.deepEqual(decisionsOf("session_spawn", spawn()), {
    prompt: "Deliver issue 42.",
    proceed: true,
    reason: "",
  });
});

Deno.test("every string decision of every point has its cap in the field table; booleans none", () => {
  assert.deepEqual(DECISION_MAX_BYTES, {
    reason: 4096,
    prompt: 262144,
    text: 262144,
    question: 65536,
    summary: 1024,
  });
  assert.equal(ANSWER_MAX_BYTES, 1048576);
  for (const p of POINT_NAMES) {
    for (const f of POINTS[p].fields) {
      const want: number | undefined = f.decision && f.type === "string"
        ? DECISION_MAX_BYTES[f.name as keyof typeof DECISION_MAX_BYTES]
        : undefined;
      assert.equal(f.maxBytes, want, `${p}.${f.name}`);
    }
  }
});

Deno.test("utf8Bytes and sizeText", () => {
  for (const s of ["", "abc", "é", "€", "😀", "a\ud800b", "x".repeat(5000)]) {
    assert.equal(utf8Bytes(s), new TextEncoder().encode(s).length, JSON.stringify(s.slice(0, 9)));
  }
  assert.equal(sizeText(999), "999 bytes");
  assert.equal(sizeText(4096), "4096 bytes (4 KiB)");
  assert.equal(sizeText(4098), "4098 bytes (4.0 KiB)");
  assert.equal(sizeText(33554432), "33554432 bytes (32 MiB)");
});

Deno.test("applyAnswer: a decision over its cap (UTF-8 bytes) refuses the whole answer", () => {
  const ctx = spawn();
  const atCap = "é".repeat(2048); // 4096 bytes, 2048 characters
  assert.deepEqual(applyAnswer("session_spawn", ctx, { reason: atCap }), ["reason"]);
  const over = "é".repeat(2049);
  assert.throws(
    () => applyAnswer("session_spawn", ctx, { proceed: false, reason: over }, { hook: "big" }),
    (e: unknown) => {
      assert.ok(e instanceof DecisionTypeError);
      assert.equal(e.field, "reason");
      assert.equal(
        e.message,
        'hook "big" at session_spawn: decision "reason" is 4098 bytes (4.0 KiB) of UTF-8, over ' +
          "its cap of 4096 bytes (4 KiB); the answer is refused whole: shorten it",
      );
      return true;
    },
  );
  assert.equal(ctx.proceed, true, "nothing applied");
  assert.equal(ctx.reason, atCap);
  assert.throws(
    () => applyAnswer("session_spawn", ctx, { prompt: "p".repeat(256 * 1024 + 1) }),
    /decision "prompt" is 262145 bytes \(256\.0 KiB\) of UTF-8, over its cap of 262144 bytes/,
  );
  const wait = makeContext("waiting_for_input", {
    work_item: item,
    kind: "question",
    node: "",
    actor: "agent",
    loop: "l",
  });
  assert.throws(
    () => applyAnswer("waiting_for_input", wait, { summary: "s".repeat(1025) }),
    /decision "summary" is 1025 bytes .* cap of 1024 bytes \(1 KiB\)/,
  );
});

Deno.test("applyAnswer names every bad field in one error and applies nothing", () => {
  const ctx = spawn();
  assert.throws(
    () =>
      applyAnswer("session_spawn", ctx, { proceed: "no", prompt: 42, colour: "red" }, {
        hook: "h",
      }),
    (e: unknown) => {
      assert.ok(e instanceof DecisionTypeError);
      assert.equal(e.field, "proceed");
      assert.equal(
        e.message,
        'hook "h" at session_spawn: decision "proceed" must be a boolean (got "no"); ' +
          'decision "prompt" must be a string (got number 42); ' +
          '"colour" is not a field of session_spawn (decisions: prompt, proceed, reason)',
      );
      return true;
    },
  );
  assert.equal(ctx.proceed, true);
  assert.equal(ctx.prompt, "Deliver issue 42.");
});
