/**
 * `the-loop loops` and `the-loop loops show REF`, run as the real CLI: the built-ins listed,
 * the config's loops read strictly (a problem at `file:line:col`, exit 1), a written position
 * shown, an item never entered refused, and `config validate` reporting the loops' problems
 * beside the schema's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { advance, BUILTIN_LOOPS, enter, type Position } from "../loops/mod.ts";
import { cli, cliSchema, tree } from "./_test_utils.ts";

const REF = "github:octo/repo#4";

const MINE = `eventLog: { enabled: false }
loops:
  mine:
    start: build
    nodes:
      build:
        actor: agent
        prompt: Build the thing.
        next: { done: check }
      check:
        actor: human
        next: { ship: shipped, redo: build }
      shipped: { terminal: true }
`;

/** A position at adhoc's review gate, written where the daemon writes it. */
async function writePosition(cwd: string): Promise<Position> {
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  const now = new Date("2026-01-02T03:04:05.000Z");
  const entered = enter(adhoc, { ref: REF, now }).position;
  const { position } = advance(adhoc, entered, {
    outcome: "done",
    kind: "agent",
    by: "agent",
    now: new Date("2026-01-02T03:10:00.000Z"),
  });
  await Deno.mkdir(join(cwd, ".the-loop", "loops"), { recursive: true });
  await Deno.writeTextFile(
    join(cwd, ".the-loop", "loops", "github-octo-repo-4.json"),
    JSON.stringify(position),
  );
  return position;
}

Deno.test("loops: the built-ins with no config, and the config's loops after them", async () => {
  const bare = await cli(["loops"], { cwd: tree() });
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /^2 loops \(2 built in\)/);
  assert.match(bare.stdout, /adhoc \(built in, routing\.loop\): starts at work/);
  assert.match(
    bare.stdout,
    /review +phase review, a person: approve → done, request-changes → work/,
  );
  assert.match(bare.stdout, /pdlc \(built in\): starts at requirements/);
  assert.match(bare.stdout, /implementation-review +phase implementation-review/);

  const cwd = tree({ "c.yaml": MINE });
  const r = await cli(["-c", "c.yaml", "loops"], { cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^3 loops \(2 built in\)/);
  assert.match(r.stdout, /mine: starts at build/);
  assert.match(
    r.stdout,
    /build +phase build, the agent, at most 3 entries: done → check\n +Build the thing\./,
  );
  assert.match(r.stdout, /shipped +phase shipped, terminal/);

  const json = await cli(["-c", "c.yaml", "loops", "--format", "json"], { cwd });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  (await cliSchema("loops"))(doc);
  assert.deepEqual(doc.loops[2], {
    name: "mine",
    builtin: false,
    start: "build",
    nodes: [
      {
        id: "build",
        phase: "build",
        actor: "agent",
        next: { done: "check" },
        terminal: false,
        maxAttempts: 3,
        prompt: "Build the thing.",
      },
      {
        id: "check",
        phase: "check",
        actor: "human",
        next: { ship: "shipped", redo: "build" },
        terminal: false,
        maxAttempts: 3,
        prompt: "",
      },
      {
        id: "shipped",
        phase: "shipped",
        actor: null,
        next: {},
        terminal: true,
        maxAttempts: 3,
        prompt: "",
      },
    ],
  });
});

Deno.test("loops: a node no path reaches is refused at file:line:col, exit 1", async () => {
  const cwd = tree({
    "c.yaml": MINE + "      orphan: { actor: agent, next: { done: shipped } }\n",
  });
  const r = await cli(["-c", "c.yaml", "loops"], { cwd });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr,
    new RegExp(
      `${join(cwd, "c.yaml").replaceAll("/", "\\/")}:14:15: loops\\.mine\\.nodes\\.orphan: ` +
        'no path reaches it from start "build"',
    ),
  );
  // config validate says the same, and so does loops show
  const v = await cli(["-c", "c.yaml", "config", "validate"], { cwd });
  assert.equal(v.code, 1);
  assert.match(v.stderr, /c\.yaml:14:15: loops\.mine\.nodes\.orphan: no path reaches it/);
  const s = await cli(["-c", "c.yaml", "loops", "show", REF], { cwd });
  assert.equal(s.code, 1);
  assert.match(s.stderr, /c\.yaml:14:15/);
});

Deno.test("config validate: the loops' problems beside the schema's, each once", async () => {
  const cwd = tree({
    "c.yaml": MINE.replace("{ ship: shipped, redo: build }", "{ ship: shiped, redo: build }") +
      "polling: { intervalSeconds: 0 }\nwebhooks: { ghWebhook: { routing: { loop: nope } } }\n",
  });
  const r = await cli(["-c", "c.yaml", "config", "validate"], { cwd });
  assert.equal(r.code, 1);
  const lines = r.stderr.trim().split("\n").filter((l) => /c\.yaml:\d+:\d+/.test(l));
  assert.deepEqual(
    lines.map((l) => l.replace(/^.*c\.yaml:/, "").replace(/^(\d+:\d+: [^:]+):.*$/, "$1")),
    [
      "12:23: loops.mine.nodes.check.next.ship",
      "14:29: polling.intervalSeconds",
      "15:43: webhooks.ghWebhook.routing.loop",
    ],
  );
  assert.match(r.stderr, /no node "shiped" in this loop \(did you mean "shipped"\?\)/);
  assert.match(r.stderr, /names no loop: "nope"/);
});

Deno.test("loops show: where a written position stands, in text and json", async () => {
  const cwd = tree({ "c.yaml": "eventLog: { enabled: false }\n" });
  const position = await writePosition(cwd);
  const r = await cli(["-c", "c.yaml", "loops", "show", REF], { cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^github:octo\/repo#4\n/);
  assert.match(r.stdout, / {2}loop +adhoc\n/);
  assert.match(r.stdout, / {2}node +review \(a person's\)\n/);
  assert.match(r.stdout, / {2}phase +review \(label loop:review\)\n/);
  assert.match(r.stdout, / {2}status +active\n/);
  assert.match(
    r.stdout,
    / {2}waiting +since 2026-01-02T03:10:00\.000Z: comment `the-loop:approve` or `the-loop:request-changes`\n/,
  );
  assert.match(r.stdout, / {2}attempts +work 1, review 1\n/);
  assert.match(r.stdout, /2026-01-02T03:04:05\.000Z {2}enter +→ work by the-loop\n/);
  assert.match(r.stdout, /2026-01-02T03:10:00\.000Z {2}agent +work → review \(done\) by agent\n/);

  const json = await cli(["-c", "c.yaml", "loops", "show", REF, "--format", "json"], { cwd });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  (await cliSchema("loops-show"))(doc);
  assert.equal(doc.ref, REF);
  assert.deepEqual(doc.position, position);
  assert.deepEqual(doc.node.next, { approve: "done", "request-changes": "work" });
});

Deno.test("loops show: an item never entered, a corrupt file (left as it is), a bad ref", async () => {
  const cwd = tree({ "c.yaml": "eventLog: { enabled: false }\n" });
  const none = await cli(["-c", "c.yaml", "loops", "show", REF], { cwd });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /github:octo\/repo#4 has not entered a loop yet/);
  const json = await cli(["-c", "c.yaml", "loops", "show", REF, "--format", "json"], { cwd });
  assert.equal(json.code, 1);
  const doc = JSON.parse(json.stdout);
  (await cliSchema("loops-show"))(doc);
  assert.deepEqual([doc.ok, doc.ref, doc.position, doc.node], [false, REF, null, null]);
  assert.match(doc.problems[0].message, /has not entered a loop yet/);

  const file = join(cwd, ".the-loop", "loops", "github-octo-repo-4.json");
  await Deno.mkdir(join(file, ".."), { recursive: true });
  await Deno.writeTextFile(file, '{"version": 1, "workItem": "github:octo/re');
  const corrupt = await cli(["-c", "c.yaml", "loops", "show", REF], { cwd });
  assert.equal(corrupt.code, 1);
  assert.match(corrupt.stderr, /does not read: not valid JSON/);
  assert.equal(await Deno.readTextFile(file), '{"version": 1, "workItem": "github:octo/re');

  const bad = await cli(["-c", "c.yaml", "loops", "show", "octo/repo#4"], { cwd });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /is not a work item ref/);
});

Deno.test("loops: a mistyped subcommand is a usage error with a suggestion", async () => {
  const r = await cli(["loops", "shwo"], { cwd: tree() });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command 'loops shwo' \(did you mean show\?\)/);
});
