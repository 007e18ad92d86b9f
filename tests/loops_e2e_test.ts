/**
 * Loops as the operator meets them before any item moves: `the-loop loops` lists the built-ins
 * as read strictly; a `loops:` declaration with a node no path reaches is refused at its
 * file:line:col by `the-loop loops` and by both daemons before they start; the verbs say so when
 * no daemon runs for the state root. The walks themselves are in `loops_poll_e2e_test.ts` and
 * `loops_webhook_e2e_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LoopsE2E, ok, PDLC } from "./_loops_e2e_utils.ts";

/** A loop whose `orphan` node no path from `start` reaches. */
const UNREACHABLE = `loops:
  triage:
    start: draft
    nodes:
      draft:
        phase: draft
        actor: agent
        next: { done: shipped }
      orphan:
        phase: orphan
        actor: agent
        next: { done: shipped }
      shipped:
        phase: shipped
        terminal: true
`;

Deno.test("the-loop loops lists the built-ins, each node as read strictly", async () => {
  const fx = await LoopsE2E.open();
  try {
    const r = ok(await fx.cli(["loops", "--format", "json"]));
    const doc = JSON.parse(r.stdout);
    const loops = doc.loops as { name: string; start: string; nodes: { id: string }[] }[];
    const byName = new Map(loops.map((l) => [l.name, l]));
    assert.deepEqual([...byName.keys()].sort(), ["adhoc", "pdlc"]);
    const pdlc = byName.get("pdlc")!;
    assert.equal(pdlc.start, "requirements");
    assert.deepEqual(pdlc.nodes.map((n) => n.id), [...PDLC]);
    const review = pdlc.nodes.find((n) => n.id === "design-review") as unknown as {
      phase: string;
      actor: string;
      next: Record<string, string>;
      terminal: boolean;
    };
    assert.deepEqual(
      [review.phase, review.actor, review.next, review.terminal],
      ["design-review", "human", { approve: "implementation", "request-changes": "design" }, false],
    );
    const text = ok(await fx.cli(["loops"]));
    assert.match(text.stdout, /pdlc/);
    assert.match(text.stdout, /adhoc/);
  } finally {
    await fx.close();
  }
});

Deno.test("a loop with an unreachable node is refused at file:line:col by loops, poll and gh-webhook", async () => {
  const fx = await LoopsE2E.open({ extraConfig: UNREACHABLE });
  try {
    const file = join(fx.root, "cli-config.yaml");
    const lines = (await Deno.readTextFile(file)).split("\n");
    // problems are located at the value of the key path: the orphan node's body, the line after
    const line = lines.indexOf("      orphan:") + 2;
    assert.ok(line > 1);
    const at = new RegExp(`cli-config\\.yaml:${line}:\\d+:.*orphan`);
    for (
      const args of [
        ["loops"],
        ["loops", "--format", "json"],
        ["poll", "start", "--once"],
        ["gh-webhook", "start", "--port", "0"],
      ]
    ) {
      const r = await fx.cli(args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, at, `${args.join(" ")} names the node's place`);
      assert.doesNotMatch(r.stdout, /started|listening/, "no daemon said it was ready");
    }
    assert.deepEqual(fx.gh.requests.filter((q) => q.method !== "GET"), [], "nothing was done");
  } finally {
    await fx.close();
  }
});

Deno.test("with no daemon running for the state root, the verbs exit 1 saying so", async () => {
  const fx = await LoopsE2E.open();
  try {
    const ref = fx.ref(1);
    // a capability of some session, so that the agent's verbs get as far as the socket
    const inSession = { THE_LOOP_SESSION: "c2Vzc2lvbi1jYXBhYmlsaXR5LW9mLXNvbWUtaXRlbQ" };
    for (
      const [args, env] of [
        [["reply", ref, "--text", "hello", "--actor", "alice"], {}],
        [["advance", ref, "--outcome", "done"], inSession],
        [["ask", ref, "--question", "why?"], inSession],
      ] as const
    ) {
      const r = await fx.cli([...args], env);
      assert.equal(r.code, 1, `${args[0]}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /no the-loop daemon is running for /, args[0]);
      assert.ok(r.stderr.includes(fx.root), `${args[0]} names the state root: ${r.stderr}`);
    }
    // outside a session the agent's verbs say where to run them
    const outside = await fx.cli(["advance", ref, "--outcome", "done"]);
    assert.equal(outside.code, 1, outside.stderr);
    assert.match(outside.stderr, /inside a the-loop session/);
  } finally {
    await fx.close();
  }
});
