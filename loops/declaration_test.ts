import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/mod.ts";
import { envOf, tempTree } from "../config/_test_utils.ts";
import { formatProblem, ProblemsError } from "../errors.ts";
import { BUILTIN_LOOPS } from "./builtin.ts";
import { parseLoops } from "./declaration.ts";
import type { LoopSet } from "./types.ts";

/** Loads `yaml` as a real config file and reads its `loops:` (and `routing.loop`) strictly. */
async function read(yaml: string): Promise<{ file: string; parse: () => LoopSet }> {
  const dir = tempTree({ "c.yaml": yaml });
  const file = join(dir, "c.yaml");
  const loaded = await loadConfig({ flag: file, env: envOf({}), cwd: dir });
  return {
    file,
    parse: () =>
      parseLoops(loaded.config.loops, {
        file,
        locate: loaded.locate,
        routingLoop: loaded.config.webhooks.ghWebhook.routing.loop,
      }),
  };
}

/** The problems, each `F:line:col: path: message`. */
async function problems(yaml: string): Promise<string[]> {
  const { file, parse } = await read(yaml);
  try {
    parse();
  } catch (e) {
    assert.ok(e instanceof ProblemsError, String(e));
    return e.problems.map((p) => formatProblem(p).replaceAll(file, "F"));
  }
  assert.fail("expected a ProblemsError");
}

const REVIEW = `loops:
  review:
    start: work
    nodes:
      work:
        phase: build
        actor: agent
        prompt: Build it.
        next: {done: check}
      check:
        actor: human
        maxAttempts: 5
        next:
          approve: shipped
          request-changes: work
      shipped:
        terminal: true
`;

Deno.test("a full loop reads with defaults filled, beside the built-ins", async () => {
  const loops = (await read(REVIEW)).parse();
  assert.deepEqual([...loops.keys()], ["adhoc", "pdlc", "review"]);
  assert.equal(loops.get("adhoc"), BUILTIN_LOOPS.get("adhoc"));
  assert.deepEqual(loops.get("review"), {
    name: "review",
    start: "work",
    builtin: false,
    nodes: {
      work: {
        id: "work",
        phase: "build",
        actor: "agent",
        next: { done: "check" },
        prompt: "Build it.",
        terminal: false,
        maxAttempts: 3,
      },
      check: {
        id: "check",
        phase: "check",
        actor: "human",
        next: { approve: "shipped", "request-changes": "work" },
        prompt: "",
        terminal: false,
        maxAttempts: 5,
      },
      shipped: {
        id: "shipped",
        phase: "shipped",
        next: {},
        prompt: "",
        terminal: true,
        maxAttempts: 3,
      },
    },
  });
});

Deno.test("no loops: key, or an empty one: the built-ins", async () => {
  assert.deepEqual([...(await read("version: '0.1.0'\n")).parse().keys()], ["adhoc", "pdlc"]);
  assert.deepEqual([...(await read("loops: {}\n")).parse().keys()], ["adhoc", "pdlc"]);
  assert.deepEqual([...parseLoops(undefined, {}).keys()], ["adhoc", "pdlc"]);
});

Deno.test("YAML's on/yes trap cannot bite: outcome keys stay strings", async () => {
  const loops = (await read(`loops:
  gate:
    start: ask
    nodes:
      ask:
        actor: human
        next: {on: done, yes: done, true: done, off: ask}
      done: {terminal: true}
`)).parse();
  assert.deepEqual(loops.get("gate")!.nodes.ask.next, {
    on: "done",
    yes: "done",
    true: "done",
    off: "ask",
  });
});

Deno.test("an unknown key of a loop or a node, with a did-you-mean", async () => {
  assert.deepEqual(
    await problems(
      REVIEW.replace("    start: work", "    start: work\n    strat: x").replace(
        "        prompt: Build it.",
        "        promt: Build it.",
      ),
    ),
    [
      'F:4:12: loops.review.strat: unknown key "strat" (did you mean "start"? expected one of: start, nodes)',
      'F:9:16: loops.review.nodes.work.promt: unknown key "promt" (did you mean "prompt"? ' +
      "expected one of: phase, actor, next, prompt, terminal, maxAttempts)",
    ],
  );
});

Deno.test("an undeclared start", async () => {
  assert.deepEqual(await problems(REVIEW.replace("start: work", "start: wrok")), [
    'F:3:12: loops.review.start: no node "wrok" in this loop (did you mean "work"?): start must be one of its nodes',
  ]);
});

Deno.test("a loop without start or nodes", async () => {
  assert.deepEqual(await problems("loops:\n  bare:\n    start: a\n"), [
    "F:3:5: loops.bare: needs nodes (a mapping of node ids to nodes)",
  ]);
  assert.deepEqual(
    await problems("loops:\n  bare:\n    nodes:\n      a: {terminal: true}\n"),
    ["F:3:5: loops.bare: needs a start (the id of the node an item enters first)"],
  );
  assert.deepEqual(await problems("loops:\n  bare:\n    start: a\n    nodes: {}\n"), [
    "F:4:12: loops.bare.nodes: must be a non-empty mapping of node ids to nodes (got {})",
  ]);
});

Deno.test("next naming an unknown node (and no cascade of reachability problems)", async () => {
  assert.deepEqual(await problems(REVIEW.replace("{done: check}", "{done: chekc}")), [
    'F:9:22: loops.review.nodes.work.next.done: no node "chekc" in this loop (did you mean "check"?)',
  ]);
});

Deno.test("a node no path reaches from start", async () => {
  assert.deepEqual(
    await problems(REVIEW + "      orphan:\n        actor: agent\n        next: {done: shipped}\n"),
    ['F:19:9: loops.review.nodes.orphan: no path reaches it from start "work"'],
  );
});

Deno.test("a node from which no terminal node can be reached", async () => {
  assert.deepEqual(
    await problems(
      REVIEW.replace("approve: shipped", "approve: limbo").replace(
        "      shipped:",
        "      limbo:\n        actor: agent\n        next: {again: limbo}\n      shipped:",
      ),
    ),
    [
      "F:6:9: loops.review.nodes.work: no terminal node can be reached from it",
      "F:11:9: loops.review.nodes.check: no terminal node can be reached from it",
      "F:17:9: loops.review.nodes.limbo: no terminal node can be reached from it",
      'F:20:9: loops.review.nodes.shipped: no path reaches it from start "work"',
    ],
  );
  assert.deepEqual(
    await problems(
      "loops:\n  spin:\n    start: a\n    nodes:\n      a: {actor: agent, next: {go: a}}\n",
    ),
    ["F:5:7: loops.spin.nodes: no node is terminal: add one (terminal: true) the others lead to"],
  );
});

Deno.test("cycles are fine", async () => {
  const loops = (await read(REVIEW)).parse();
  assert.equal(loops.get("review")!.nodes.check.next["request-changes"], "work");
});

Deno.test("a non-terminal node with no next, or without an actor; an unknown actor", async () => {
  assert.deepEqual(
    await problems(
      REVIEW.replace("        next: {done: check}\n", "").replace(
        "        actor: human\n",
        "        actor: robot\n",
      ),
    ),
    [
      "F:6:9: loops.review.nodes.work: needs next (outcome → node), or terminal: true",
      'F:10:16: loops.review.nodes.check.actor: must be agent or human (got "robot")',
    ],
  );
  assert.deepEqual(await problems(REVIEW.replace("        actor: agent\n", "")), [
    "F:6:9: loops.review.nodes.work: needs an actor (agent or human), or terminal: true",
  ]);
  assert.deepEqual(await problems(REVIEW.replace("{done: check}", "{}")), [
    "F:9:15: loops.review.nodes.work.next: must be a non-empty mapping of outcomes to node ids (got {})",
  ]);
});

Deno.test("a terminal node with next, or with an actor", async () => {
  assert.deepEqual(
    await problems(
      REVIEW.replace(
        "        terminal: true\n",
        "        terminal: true\n        actor: human\n        next: {again: work}\n",
      ),
    ),
    [
      "F:18:16: loops.review.nodes.shipped.actor: a terminal node has no actor; remove it",
      "F:19:15: loops.review.nodes.shipped.next: a terminal node has no next; remove it",
    ],
  );
});

Deno.test("a bad maxAttempts; terminal and prompt of the wrong type", async () => {
  for (const bad of ["0", "1.5", "three", "-2"]) {
    assert.deepEqual(
      await problems(REVIEW.replace("maxAttempts: 5", `maxAttempts: ${bad}`)),
      [
        `F:12:22: loops.review.nodes.check.maxAttempts: must be a whole number ≥ 1 (got ${
          bad === "three" ? '"three"' : bad
        })`,
      ],
    );
  }
  assert.deepEqual(
    await problems(
      REVIEW.replace("terminal: true", "terminal: yes").replace(
        "prompt: Build it.",
        "prompt: [a]",
      ),
    ),
    [
      'F:8:17: loops.review.nodes.work.prompt: must be a string (got ["a"])',
      'F:17:19: loops.review.nodes.shipped.terminal: must be true or false (got "yes")',
    ],
  );
});

Deno.test("bad names: a loop, a node, an outcome; a phase that is not label-safe", async () => {
  assert.deepEqual(
    await problems(`loops:
  Review:
    start: a
    nodes:
      a: {actor: agent, next: {Done: b_2}}
      b_2: {phase: "Big Phase", terminal: true}
`),
    [
      'F:3:5: loops.Review: the loop name "Review" must be lowercase letters, digits and -, starting with a letter',
      'F:5:38: loops.Review.nodes.a.next.Done: the outcome "Done" must be lowercase letters, digits and -, starting with a letter',
      'F:6:12: loops.Review.nodes.b_2: the node id "b_2" must be lowercase letters, digits and -, starting with a letter',
      'F:6:20: loops.Review.nodes.b_2.phase: the phase must be label-safe: lowercase letters, digits, ".", "_" and "-", starting with a letter or digit (got "Big Phase")',
    ],
  );
  const long = "x".repeat(46);
  assert.deepEqual(
    await problems(
      `loops:\n  l:\n    start: ${long}\n    nodes:\n      ${long}: {terminal: true}\n`,
    ),
    [
      `F:5:55: loops.l.nodes.${long}: the phase (the node's id, as no phase is given) must be at ` +
      "most 45 characters (its label is loop:<phase>, and a label at most 50; got 46)",
    ],
  );
});

Deno.test("a loop named like a built-in", async () => {
  assert.deepEqual(
    await problems("loops:\n  pdlc:\n    start: a\n    nodes:\n      a: {terminal: true}\n"),
    ['F:3:5: loops.pdlc: "pdlc" is built in; name yours differently'],
  );
});

Deno.test("a loop or a node that is not a mapping", async () => {
  assert.deepEqual(
    await problems("loops:\n  l:\n    start: a\n    nodes:\n      a: done\n"),
    ['F:5:10: loops.l.nodes.a: must be a mapping with actor and next, or terminal: true (got "done")'],
  );
  assert.throws(() => parseLoops(["a"], {}), /loops: must be a mapping of loop names to loops/);
});

Deno.test("routing.loop naming no loop is a problem where it is written", async () => {
  const yaml = REVIEW + "webhooks:\n  ghWebhook:\n    routing:\n      loop: reveiw\n";
  assert.deepEqual(await problems(yaml), [
    'F:21:13: webhooks.ghWebhook.routing.loop: names no loop: "reveiw" (did you mean "review"? ' +
    "the loops: adhoc, pdlc, review)",
  ]);
  const ok = (await read(yaml.replace("reveiw", "review"))).parse();
  assert.ok(ok.has("review"));
});

Deno.test("every problem at once, token-shaped text masked", async () => {
  const token = "ghp_" + "a".repeat(36);
  const found = await problems(`loops:
  l:
    start: a
    nodes:
      a: {actor: agent, next: {done: ${token}}}
      b: {terminal: true, ${token}: 1}
`);
  assert.equal(found.length, 2);
  for (const p of found) assert.ok(!p.includes(token), p);
});

Deno.test("the message heads the problems with their count", async () => {
  const { parse } = await read(
    REVIEW.replace("start: work", "start: x").replace("actor: agent", "actor: x"),
  );
  assert.throws(parse, (e: Error) => e.message.startsWith("2 problems in the loops:\n  "));
});

Deno.test("routing.loop naming a loop with problems of its own is no problem more", async () => {
  const yaml = REVIEW.replace("start: work", "start: nowhere") +
    "webhooks:\n  ghWebhook:\n    routing:\n      loop: review\n";
  const found = await problems(yaml);
  assert.equal(found.length, 1, found.join("\n"));
  assert.match(found[0], /loops\.review\.start/);
});
