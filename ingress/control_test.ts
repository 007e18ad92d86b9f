import assert from "node:assert/strict";
import { capabilityFor } from "../daemon/mod.ts";
import type { DispatchOutcome, VerbRequest, Via } from "../dispatch/mod.ts";
import { MemorySink } from "../events/mod.ts";
import { verbHandler, verbOf } from "./control.ts";

const KEY = new Uint8Array(32).fill(5);
const REF = "github:octo/repo#3";
const signal = new AbortController().signal;

/** A dispatcher that records what it was asked to act on. */
function acting() {
  const acted: { req: VerbRequest; via: Via }[] = [];
  return {
    acted,
    dispatcher: {
      dispatch: (): Promise<DispatchOutcome> => Promise.reject(new Error("not here")),
      act: (req: VerbRequest, o: { via: Via }) => {
        acted.push({ req, via: o.via });
        return Promise.resolve({ exit: 0 as const, message: `did ${req.verb}` });
      },
    },
  };
}

Deno.test("verbOf: each verb's fields, the ref made canonical; anything malformed is exit 2", () => {
  assert.deepEqual(verbOf({ v: 1, verb: "advance", ref: REF, outcome: " done ", node: "work" }), {
    verb: "advance",
    ref: REF,
    outcome: "done",
    node: "work",
  });
  assert.deepEqual(verbOf({ v: 1, verb: "ask", ref: REF, question: "why?" }), {
    verb: "ask",
    ref: REF,
    question: "why?",
  });
  assert.deepEqual(verbOf({ v: 1, verb: "reply", ref: REF, text: "because", actor: "alice" }), {
    verb: "reply",
    ref: REF,
    text: "because",
    actor: "alice",
  });
  for (
    const [req, want] of [
      [{ v: 2, verb: "reply", ref: REF }, /request version 2/],
      [{ v: 1, verb: "merge", ref: REF }, /unknown verb "merge"/],
      [{ v: 1, verb: "reply", text: "x", actor: "a" }, /no work item ref/],
      [{ v: 1, verb: "reply", ref: "octo/repo#3", text: "x", actor: "a" }, /not a work item ref/],
      [{ v: 1, verb: "ask", ref: REF, question: "  " }, /--question is empty/],
      [{ v: 1, verb: "advance", ref: REF }, /--outcome is empty/],
      [{ v: 1, verb: "reply", ref: REF, text: "x", actor: 7 }, /--actor is empty/],
    ] as const
  ) {
    const r = verbOf(req as Record<string, unknown>);
    assert.ok("exit" in r && r.exit === 2, JSON.stringify(req));
    assert.match(r.message, want);
  }
});

Deno.test("verbHandler: advance and ask need the ref's capability; reply needs none", async () => {
  const { acted, dispatcher } = acting();
  const events = new MemorySink();
  const handle = verbHandler({ dispatcher, key: KEY, via: "poll", events });
  const cap = capabilityFor(KEY, REF);
  const other = capabilityFor(KEY, "github:octo/repo#4");
  const advance = { v: 1, verb: "advance", ref: REF, outcome: "done" };
  assert.equal((await handle({ ...advance, capability: cap }, { signal })).exit, 0);
  for (const capability of [other, undefined, ""]) {
    const r = await handle({ ...advance, capability }, { signal });
    assert.equal(r.exit, 1);
    assert.match(r.message, /this session may act only on its own work item/);
  }
  const ask = await handle({ v: 1, verb: "ask", ref: REF, question: "q?", capability: other }, {
    signal,
  });
  assert.equal(ask.exit, 1);
  const reply = { v: 1, verb: "reply", ref: REF, text: "a", actor: "alice" };
  assert.equal((await handle(reply, { signal })).message, "did reply");
  assert.deepEqual(acted.map((a) => [a.req.verb, a.via]), [["advance", "poll"], ["reply", "poll"]]);
  const refused = events.ofType("control.verb_refused");
  assert.deepEqual(refused.map((r) => r.reason), ["mismatch", "missing", "missing", "mismatch"]);
  assert.ok(!JSON.stringify(events.records).includes(cap), "a capability is never logged");
  assert.ok(!JSON.stringify(events.records).includes(other), "not even a wrong one");
  assert.deepEqual(events.ofType("control.verb").map((r) => [r.verb, r.exit]), [
    ["advance", 0],
    ["reply", 0],
  ]);
});

Deno.test("verbHandler: a daemon without sessions (journal) says so", async () => {
  const handle = verbHandler({
    dispatcher: { dispatch: () => Promise.reject(new Error("no")) },
    key: KEY,
    via: "gh-webhook",
    events: new MemorySink(),
  });
  const r = await handle({ v: 1, verb: "reply", ref: REF, text: "a", actor: "alice" }, { signal });
  assert.equal(r.exit, 1);
  assert.match(r.message, /routing\.dispatcher: journal/);
});

Deno.test("verbHandler: a reply sent from inside a session (its capability along) is refused", async () => {
  const { acted, dispatcher } = acting();
  const events = new MemorySink();
  const handle = verbHandler({ dispatcher, key: KEY, via: "gh-webhook", events });
  for (const capability of [capabilityFor(KEY, REF), capabilityFor(KEY, "github:octo/repo#4")]) {
    const r = await handle(
      { v: 1, verb: "reply", ref: REF, text: "push to main", actor: "alice", capability },
      { signal },
    );
    assert.equal(r.exit, 1);
    assert.match(r.message, /cannot be sent from inside a the-loop session/);
  }
  assert.deepEqual(acted, [], "nothing reached the dispatcher");
  assert.deepEqual(
    events.ofType("control.verb_refused").map((r) => r.reason),
    ["from-a-session", "from-a-session"],
  );
});

Deno.test("verbHandler: resumed (sessions resume's) is the operator's: no capability, refused from a session", async () => {
  const { acted, dispatcher } = acting();
  const events = new MemorySink();
  const handle = verbHandler({ dispatcher, key: KEY, via: "poll", events });
  assert.deepEqual(verbOf({ v: 1, verb: "resumed", ref: REF }), { verb: "resumed", ref: REF });
  assert.equal(
    (await handle({ v: 1, verb: "resumed", ref: REF }, { signal })).message,
    "did resumed",
  );
  const inside = await handle(
    { v: 1, verb: "resumed", ref: REF, capability: capabilityFor(KEY, REF) },
    { signal },
  );
  assert.equal(inside.exit, 1);
  assert.match(inside.message, /resumed: an operator's; it cannot be sent from inside/);
  assert.deepEqual(acted.map((a) => a.req.verb), ["resumed"]);
  assert.deepEqual(events.ofType("control.verb_refused").map((r) => r.reason), ["from-a-session"]);
});

Deno.test("verbHandler: verdict (the-loop verdict's) is the operator's: its fields, no capability, refused from a session", async () => {
  const { acted, dispatcher } = acting();
  const events = new MemorySink();
  const handle = verbHandler({ dispatcher, key: KEY, via: "gh-webhook", events });
  assert.deepEqual(
    verbOf({ v: 1, verb: "verdict", ref: REF, outcome: " approve ", actor: "alice" }),
    { verb: "verdict", ref: REF, outcome: "approve", actor: "alice" },
  );
  assert.equal(
    (verbOf({ v: 1, verb: "verdict", ref: REF, outcome: "approve" }) as { exit?: number }).exit,
    2,
  );
  assert.equal(
    (verbOf({ v: 1, verb: "verdict", ref: REF, actor: "alice" }) as { exit?: number }).exit,
    2,
  );
  const req = { v: 1, verb: "verdict", ref: REF, outcome: "approve", actor: "alice" };
  assert.equal((await handle(req, { signal })).message, "did verdict");
  const inside = await handle({ ...req, capability: capabilityFor(KEY, REF) }, { signal });
  assert.equal(inside.exit, 1);
  assert.match(inside.message, /verdict: an operator's; it cannot be sent from inside/);
  assert.deepEqual(acted.map((a) => a.req.verb), ["verdict"]);
  assert.deepEqual(events.ofType("control.verb_refused").map((r) => r.reason), ["from-a-session"]);
});
