import assert from "node:assert/strict";
import {
  applyAnswer,
  ContextError,
  decisionNames,
  decisionsOf,
  DecisionTypeError,
  makeContext,
  POINT_NAMES,
  POINTS,
  type SessionSpawn,
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
