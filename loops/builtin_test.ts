import assert from "node:assert/strict";
import { BUILTIN_LOOPS, BUILTIN_NAMES } from "./builtin.ts";

/** `node -outcome-> next` for every edge, and `node (terminal)`. */
const edges = (name: string) =>
  Object.values(BUILTIN_LOOPS.get(name)!.nodes).flatMap((n) =>
    n.terminal
      ? [`${n.id} (terminal)`]
      : Object.entries(n.next).map(([o, to]) => `${n.id}[${n.actor}] -${o}-> ${to}`)
  );

Deno.test("the built-ins are adhoc and pdlc, marked built in", () => {
  assert.deepEqual([...BUILTIN_LOOPS.keys()], BUILTIN_NAMES);
  for (const loop of BUILTIN_LOOPS.values()) assert.equal(loop.builtin, true);
});

Deno.test("adhoc: work → review (a person's) → done, request-changes back to work", () => {
  assert.equal(BUILTIN_LOOPS.get("adhoc")!.start, "work");
  assert.deepEqual(edges("adhoc"), [
    "work[agent] -done-> review",
    "review[human] -approve-> done",
    "review[human] -request-changes-> work",
    "done (terminal)",
  ]);
});

Deno.test("pdlc: three stages, each reviewed by a person, back to its author on changes", () => {
  assert.equal(BUILTIN_LOOPS.get("pdlc")!.start, "requirements");
  assert.deepEqual(edges("pdlc"), [
    "requirements[agent] -done-> requirements-review",
    "requirements-review[human] -approve-> design",
    "requirements-review[human] -request-changes-> requirements",
    "design[agent] -done-> design-review",
    "design-review[human] -approve-> implementation",
    "design-review[human] -request-changes-> design",
    "implementation[agent] -done-> implementation-review",
    "implementation-review[human] -approve-> done",
    "implementation-review[human] -request-changes-> implementation",
    "done (terminal)",
  ]);
});

Deno.test("every built-in node has a phase of its own (its id), agent nodes a prompt", () => {
  for (const loop of BUILTIN_LOOPS.values()) {
    for (const node of Object.values(loop.nodes)) {
      assert.equal(node.phase, node.id);
      assert.equal(node.maxAttempts, 3);
      if (node.actor === "agent") assert.notEqual(node.prompt, "", `${loop.name}.${node.id}`);
    }
  }
});
